"""Checks a KServe v2 server with Triton's own Python client (tritonclient.http and tritonclient.grpc).

Usage: triton-python tritonclient_check.py MODELS_JSON HTTP_HOST:PORT GRPC_HOST:PORT
MODELS_JSON lists the models to check as the catalog states them:
  {"models": [{"name", "maxBatchSize", "inputs": [{"name", "datatype", "dims"}], "outputs": [...]}],
   "reload": "<model to unload and load again>"}
The server must run in explicit model-control mode with every listed model loaded. Each check asserts;
the script prints one JSON summary {"passed": [...], "failed": [{"check", "error"}], "facts": {...}}
and exits 1 when a check failed.
"""

import json
import queue
import sys
import traceback

import grpc
import numpy as np
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.grpc import service_pb2, service_pb2_grpc
from tritonclient.utils import InferenceServerException, triton_to_np_dtype

passed = []
failed = []
facts = {}


def check(name, fn):
    """Runs one check; an exception (assertion or client error) marks it failed."""
    try:
        fn()
        passed.append(name)
    except Exception as err:  # noqa: BLE001 - every failure is reported, none stops the run
        failed.append({"check": name, "error": f"{type(err).__name__}: {err}", "trace": traceback.format_exc(limit=3)})


def expect_error(fn, *needles, http_status=None, grpc_code=None):
    """Asserts fn raises InferenceServerException whose message holds every needle (and the status, if given)."""
    try:
        fn()
    except InferenceServerException as err:
        msg = err.message()
        for needle in needles:
            assert needle in msg, f"error {msg!r} lacks {needle!r}"
        if http_status is not None:
            assert str(err.status()) == str(http_status), f"HTTP status {err.status()} != {http_status}: {msg}"
        if grpc_code is not None:
            assert err.status() == str(grpc_code), f"gRPC status {err.status()} != {grpc_code}: {msg}"
        return msg
    raise AssertionError(f"no error raised; expected one holding {needles}")


def assert_false(value):
    assert not value, f"expected false, got {value!r}"


def batch_of(model):
    """Requests carry 2 items when the model batches (so inference counts differ from request counts)."""
    return 2 if model["maxBatchSize"] >= 2 else 1


def shape_of(model, dims):
    return ([batch_of(model)] if model["maxBatchSize"] > 0 else []) + list(dims)


def tensor_data(model, spec, seed):
    """Deterministic data of the input's datatype and request shape; integers small enough for any id table."""
    rng = np.random.default_rng(seed)
    shape = shape_of(model, spec["dims"])
    dtype = triton_to_np_dtype(spec["datatype"])
    if np.issubdtype(dtype, np.floating):
        return rng.random(shape).astype(dtype)
    return rng.integers(0, 100, size=shape).astype(dtype)


def inputs_for(mod, model, seed, binary=True):
    """InferInput list for tritonclient.http (binary or JSON tensors) or tritonclient.grpc (mod.InferInput)."""
    result = []
    for i, spec in enumerate(model["inputs"]):
        data = tensor_data(model, spec, seed + i)
        inp = mod.InferInput(spec["name"], list(data.shape), spec["datatype"])
        if mod is httpclient:
            inp.set_data_from_numpy(data, binary_data=binary)
        else:
            inp.set_data_from_numpy(data)
        result.append(inp)
    return result


def outputs_of(result, model):
    """Every output as numpy, after checking its shape and datatype against the catalog."""
    out = {}
    for spec in model["outputs"]:
        arr = result.as_numpy(spec["name"])
        assert arr is not None, f"output {spec['name']} missing"
        assert list(arr.shape) == shape_of(model, spec["dims"]), f"{spec['name']} shape {list(arr.shape)}"
        assert arr.dtype == triton_to_np_dtype(spec["datatype"]), f"{spec['name']} dtype {arr.dtype}"
        out[spec["name"]] = arr
    return out


def same_outputs(a, b, what):
    for name in a:
        assert np.array_equal(a[name], b[name]), f"{what}: output {name} differs"


def typed_contents_request(model, seed):
    """A gRPC ModelInferRequest with typed `contents` (not raw_input_contents), which tritonclient never sends."""
    field = {"FP32": "fp32_contents", "FP64": "fp64_contents", "INT64": "int64_contents", "INT32": "int_contents"}
    req = service_pb2.ModelInferRequest(model_name=model["name"], id="typed")
    for i, spec in enumerate(model["inputs"]):
        data = tensor_data(model, spec, seed + i)
        tensor = req.inputs.add(name=spec["name"], datatype=spec["datatype"], shape=list(data.shape))
        getattr(tensor.contents, field[spec["datatype"]]).extend(data.flatten().tolist())
    return req


def stat_counts(stats, name):
    """(request success count, inference count) of a model from either client's statistics JSON."""
    entry = next(s for s in stats["model_stats"] if s["name"] == name)
    return int(entry["inference_stats"]["success"]["count"]), int(entry.get("inference_count", 0))


def check_model(model, h, g, stub):
    """Every infer path for one model; all answers must be equal, and the statistics must count each request."""
    name = model["name"]
    seed = 7
    requests = 0
    before = stat_counts(h.get_inference_statistics(name), name)
    reference = {}

    def http_binary():
        nonlocal requests
        outs = [httpclient.InferRequestedOutput(o["name"], binary_data=True) for o in model["outputs"]]
        res = h.infer(name, inputs_for(httpclient, model, seed, True), outputs=outs, request_id="b1")
        requests += 1
        assert res.get_response()["id"] == "b1"
        assert res.get_response()["model_name"] == name
        reference.update(outputs_of(res, model))

    def http_json():
        nonlocal requests
        outs = [httpclient.InferRequestedOutput(o["name"], binary_data=False) for o in model["outputs"]]
        res = h.infer(name, inputs_for(httpclient, model, seed, False), outputs=outs)
        requests += 1
        for o in res.get_response()["outputs"]:
            assert "data" in o and "binary_data_size" not in o.get("parameters", {}), "JSON output expected"
        same_outputs(reference, outputs_of(res, model), "HTTP JSON vs binary")

    def grpc_raw():
        nonlocal requests
        res = g.infer(name, inputs_for(grpcclient, model, seed), request_id="g1")
        requests += 1
        assert res.get_response().id == "g1"
        same_outputs(reference, outputs_of(res, model), "gRPC vs HTTP")

    def grpc_typed():
        nonlocal requests
        res = grpcclient.InferResult(stub.ModelInfer(typed_contents_request(model, seed)))
        requests += 1
        same_outputs(reference, outputs_of(res, model), "gRPC typed contents vs HTTP")

    def grpc_stream():
        nonlocal requests
        answers = queue.Queue()
        g.start_stream(callback=lambda result, error: answers.put((result, error)))
        try:
            for i in range(3):
                g.async_stream_infer(name, inputs_for(grpcclient, model, seed), request_id=f"s{i}")
            got = [answers.get(timeout=30) for _ in range(3)]
        finally:
            g.stop_stream()
        requests += 3
        ids = sorted(res.get_response().id for res, err in got if err is None)
        assert ids == ["s0", "s1", "s2"], f"stream answers {ids}, errors {[str(e) for _, e in got if e]}"
        for res, _ in got:
            same_outputs(reference, outputs_of(res, model), "gRPC stream vs HTTP")

    def http_options():
        nonlocal requests
        # gzip both ways, and an explicit version, as a client pinned to version 1 would ask.
        res = h.infer(
            name,
            inputs_for(httpclient, model, seed),
            model_version="1",
            request_compression_algorithm="gzip",
            response_compression_algorithm="gzip",
        )
        requests += 1
        assert res.get_response()["model_version"] == "1"
        same_outputs(reference, outputs_of(res, model), "HTTP gzip vs plain")

    def grpc_options():
        nonlocal requests
        res = g.infer(name, inputs_for(grpcclient, model, seed), model_version="1", compression_algorithm="gzip")
        requests += 1
        assert res.get_response().model_version == "1"
        same_outputs(reference, outputs_of(res, model), "gRPC gzip vs HTTP")

    def classification():
        nonlocal requests
        k = 3
        out = model["outputs"][0]
        answers = [
            h.infer(name, inputs_for(httpclient, model, seed), outputs=[httpclient.InferRequestedOutput(out["name"], class_count=k)]),
            g.infer(name, inputs_for(grpcclient, model, seed), outputs=[grpcclient.InferRequestedOutput(out["name"], class_count=k)]),
        ]
        requests += 2
        # Triton's extension: per batch item, the k largest values as "value:index", largest first.
        rows = reference[out["name"]].reshape(batch_of(model), -1)
        k = min(k, rows.shape[1])  # Triton caps k at the number of classes
        for res in answers:
            got = res.as_numpy(out["name"])
            assert list(got.shape) == [batch_of(model), k], f"classification shape {list(got.shape)}"
            for row, entries in zip(rows, got):
                indices = [int(e.decode().split(":")[1]) for e in entries]
                assert indices == list(np.argsort(-row, kind="stable")[:k]), f"top-{k} {indices}"
                for e, i in zip(entries, indices):
                    assert abs(float(e.decode().split(":")[0]) - row[i]) < 1e-5, e

    def statistics():
        after = stat_counts(g.get_inference_statistics(name, as_json=True), name)
        delta = (after[0] - before[0], after[1] - before[1])
        facts.setdefault("stat_deltas", {})[name] = {"requests": requests, "success": delta[0], "inferences": delta[1]}
        assert delta[0] == requests, f"success count +{delta[0]} after {requests} requests"
        assert delta[1] == requests * batch_of(model), f"inference count +{delta[1]} after {requests} x batch"

    check(f"infer http binary {name}", http_binary)
    check(f"infer http json {name}", http_json)
    check(f"infer grpc {name}", grpc_raw)
    check(f"infer grpc typed contents {name}", grpc_typed)
    check(f"stream infer grpc {name}", grpc_stream)
    check(f"infer http gzip version {name}", http_options)
    check(f"infer grpc gzip version {name}", grpc_options)
    if model["maxBatchSize"] > 0 and len(model["outputs"][0]["dims"]) == 1:
        check(f"classification http+grpc {name}", classification)
    check(f"statistics delta {name}", statistics)


def check_metadata(model, h, g):
    name = model["name"]
    batch_dim = [-1] if model["maxBatchSize"] > 0 else []

    def http_meta():
        meta = h.get_model_metadata(name)
        assert meta["name"] == name
        got = [(t["name"], t["datatype"], t["shape"]) for t in meta["inputs"]]
        want = [(t["name"], t["datatype"], batch_dim + t["dims"]) for t in model["inputs"]]
        assert got == want, f"inputs {got} != {want}"
        got = [(t["name"], t["datatype"], t["shape"]) for t in meta["outputs"]]
        want = [(t["name"], t["datatype"], batch_dim + t["dims"]) for t in model["outputs"]]
        assert got == want, f"outputs {got} != {want}"

    def grpc_meta():
        meta = g.get_model_metadata(name)
        assert meta.name == name
        got = [(t.name, t.datatype, list(t.shape)) for t in meta.inputs]
        want = [(t["name"], t["datatype"], batch_dim + t["dims"]) for t in model["inputs"]]
        assert got == want, f"inputs {got} != {want}"

    def http_config():
        config = h.get_model_config(name)
        assert config["name"] == name
        assert config["max_batch_size"] == model["maxBatchSize"], f"max_batch_size {config['max_batch_size']}"
        got = [(t["name"], t["data_type"], [int(d) for d in t["dims"]]) for t in config["input"]]
        want = [(t["name"], "TYPE_" + t["datatype"], t["dims"]) for t in model["inputs"]]
        assert got == want, f"config inputs {got} != {want}"

    def grpc_config():
        config = g.get_model_config(name).config
        assert config.name == name and config.max_batch_size == model["maxBatchSize"]
        got = [(t.name, grpcclient.model_config_pb2.DataType.Name(t.data_type), list(t.dims)) for t in config.input]
        want = [(t["name"], "TYPE_" + t["datatype"], t["dims"]) for t in model["inputs"]]
        assert got == want, f"config inputs {got} != {want}"

    def ready():
        assert h.is_model_ready(name) and g.is_model_ready(name)

    check(f"model ready {name}", ready)
    check(f"model metadata http {name}", http_meta)
    check(f"model metadata grpc {name}", grpc_meta)
    check(f"model config http {name}", http_config)
    check(f"model config grpc {name}", grpc_config)


def check_server(h, g, names):
    def health():
        assert h.is_server_live() and h.is_server_ready()
        assert g.is_server_live() and g.is_server_ready()

    def server_meta():
        meta = h.get_server_metadata()
        assert meta["name"] == "triton" and meta["version"].startswith("2."), meta
        assert {"binary_tensor_data", "model_repository", "statistics"} <= set(meta["extensions"]), meta
        gmeta = g.get_server_metadata()
        assert gmeta.name == meta["name"] and gmeta.version == meta["version"]
        assert list(gmeta.extensions) == meta["extensions"]
        facts["server_version"] = meta["version"]

    def index():
        rows = {r["name"]: r for r in h.get_model_repository_index()}
        assert set(names) <= set(rows), f"index {sorted(rows)} lacks some of {names}"
        assert all(rows[n].get("state") == "READY" for n in names), rows
        grows = {r.name: r for r in g.get_model_repository_index().models}
        assert set(grows) == set(rows) and all(grows[n].state == "READY" for n in names)

    check("health live/ready http+grpc", health)
    check("server metadata http+grpc", server_meta)
    check("repository index http+grpc", index)


def check_reload(model, h, g):
    """Unload and load through each client; readiness, the index and infer follow."""
    name = model["name"]

    def cycle(client, other, index_rows):
        client.unload_model(name)
        assert not h.is_model_ready(name) and not g.is_model_ready(name), "still ready after unload"
        rows = index_rows()
        assert rows.get(name) == ("UNAVAILABLE", "unloaded"), f"index row after unload: {rows.get(name)}"
        # Triton's strict readiness ignores models unloaded on request (server.cc IsReady: "unloaded" is okay).
        assert h.is_server_ready() and g.is_server_ready(), "server not ready after an explicit unload"
        expect_error(lambda: other.infer(name, inputs_for(type_of(other), model, 1)), name)
        client.load_model(name)
        assert h.is_model_ready(name) and g.is_model_ready(name), "not ready after load"
        assert index_rows().get(name)[0] == "READY"
        outputs_of(other.infer(name, inputs_for(type_of(other), model, 1)), model)

    def type_of(client):
        return httpclient if isinstance(client, httpclient.InferenceServerClient) else grpcclient

    check(
        f"unload/load http {name}",
        lambda: cycle(h, g, lambda: {r["name"]: (r.get("state"), r.get("reason")) for r in h.get_model_repository_index()}),
    )
    check(
        f"unload/load grpc {name}",
        lambda: cycle(g, h, lambda: {r.name: (r.state, r.reason) for r in g.get_model_repository_index().models}),
    )


def check_config_override(model, h, g):
    """Load with a "config" override (Triton's load API parameter); a plain load then keeps it, as Triton 2.60 does
    for an unchanged repository folder, and an override with the original config puts the original back."""
    name = model["name"]
    original = h.get_model_config(name)
    smaller = dict(original, max_batch_size=original["max_batch_size"] // 2)
    smaller.pop("dynamic_batching", None)  # preferred sizes above the new limit would be invalid

    def batch_of_size(mod, size):
        inputs = []
        for spec in model["inputs"]:
            data = np.zeros([size] + spec["dims"], dtype=triton_to_np_dtype(spec["datatype"]))
            inputs.append(mod.InferInput(spec["name"], list(data.shape), spec["datatype"]).set_data_from_numpy(data))
        return inputs

    def cycle(client, mod, read_max):
        limit = smaller["max_batch_size"]
        client.load_model(name, config=json.dumps(smaller))
        assert read_max() == limit, f"max_batch_size {read_max()} after override {limit}"
        outputs_of_size = client.infer(name, batch_of_size(mod, limit)).as_numpy(model["outputs"][0]["name"])
        assert outputs_of_size.shape[0] == limit
        expect_error(lambda: client.infer(name, batch_of_size(mod, limit + 1)), f"must be <= {limit}")
        client.load_model(name)
        assert read_max() == limit, f"max_batch_size {read_max()} after a plain load: the override should stay"
        client.load_model(name, config=json.dumps(original))
        assert read_max() == original["max_batch_size"], "original config not restored by loading it as an override"

    check(
        f"load with config override http {name}",
        lambda: cycle(h, httpclient, lambda: h.get_model_config(name)["max_batch_size"]),
    )
    check(
        f"load with config override grpc {name}",
        lambda: cycle(g, grpcclient, lambda: g.get_model_config(name).config.max_batch_size),
    )


def check_stream_order(model, g):
    """Triton answers a non-decoupled stream in request order, errors included (stream_infer_handler.cc)."""
    name = model["name"]
    spec = model["inputs"][0]

    def bad_inputs():
        inputs = inputs_for(grpcclient, model, 5)
        data = tensor_data(model, spec, 5)[..., :-1]  # one element short: fails validation at once
        inputs[0] = grpcclient.InferInput(spec["name"], list(data.shape), spec["datatype"])
        inputs[0].set_data_from_numpy(data)
        return inputs

    def ordered():
        answers = queue.Queue()
        g.start_stream(callback=lambda result, error: answers.put((result, error)))
        try:
            plan = [("o0", True), ("o1", False), ("o2", True), ("o3", False)]
            for rid, valid in plan:
                inputs = inputs_for(grpcclient, model, 5) if valid else bad_inputs()
                g.async_stream_infer(name, inputs, request_id=rid)
            got = [answers.get(timeout=30) for _ in plan]
        finally:
            g.stop_stream()
        assert [err is None for _, err in got] == [valid for _, valid in plan], [str(e) for _, e in got]
        # An error carries its request id in the message: "[request id: o1] unexpected shape ...".
        ids = [res.get_response().id if err is None else str(err).split("]")[0].split(": ")[-1] for res, err in got]
        assert ids == [rid for rid, _ in plan], f"stream answer order {ids}"

    check(f"stream answers in request order grpc {name}", ordered)


def check_errors(model, h, g):
    name = model["name"]
    spec = model["inputs"][0]

    def with_first(mod, replace):
        inputs = inputs_for(mod, model, 3)
        inputs[0] = replace(mod)
        return inputs

    def wrong_shape(mod):
        data = tensor_data(model, spec, 3)
        bad = np.concatenate([data, data[..., :1]], axis=-1)  # one element too many in the last dim
        inp = mod.InferInput(spec["name"], list(bad.shape), spec["datatype"])
        inp.set_data_from_numpy(bad)
        return inp

    def wrong_datatype(mod):
        other = "INT32" if spec["datatype"] != "INT32" else "FP32"
        data = tensor_data(model, spec, 3).astype(triton_to_np_dtype(other))
        inp = mod.InferInput(spec["name"], list(data.shape), other)
        inp.set_data_from_numpy(data)
        return inp

    check(
        f"error wrong shape http {name}",
        lambda: expect_error(
            lambda: h.infer(name, with_first(httpclient, wrong_shape)),
            "unexpected shape", spec["name"], http_status=400,
        ),
    )
    check(
        f"error wrong shape grpc {name}",
        lambda: expect_error(
            lambda: g.infer(name, with_first(grpcclient, wrong_shape)),
            "unexpected shape", spec["name"], grpc_code=grpc.StatusCode.INVALID_ARGUMENT,
        ),
    )
    check(
        f"error wrong datatype http {name}",
        lambda: expect_error(
            lambda: h.infer(name, with_first(httpclient, wrong_datatype)),
            "data-type", spec["name"], http_status=400,
        ),
    )
    check(
        f"error wrong datatype grpc {name}",
        lambda: expect_error(
            lambda: g.infer(name, with_first(grpcclient, wrong_datatype)),
            "data-type", spec["name"], grpc_code=grpc.StatusCode.INVALID_ARGUMENT,
        ),
    )


def check_unknown_model(model, h, g):
    unknown = "no-such-model"
    check(
        "error unknown model http",
        lambda: expect_error(lambda: h.infer(unknown, inputs_for(httpclient, model, 3)), "unknown model", unknown),
    )
    check(
        "error unknown model grpc",
        lambda: expect_error(lambda: g.infer(unknown, inputs_for(grpcclient, model, 3)), "unknown model", unknown),
    )
    # Triton answers readiness of an unknown model with "not ready", not an error (server.cc ModelIsReady).
    check("unknown model not ready http+grpc", lambda: assert_false(h.is_model_ready(unknown) or g.is_model_ready(unknown)))
    check(
        "error load unknown model http+grpc",
        lambda: (expect_error(lambda: h.load_model(unknown), unknown), expect_error(lambda: g.load_model(unknown), unknown)),
    )
    check(
        "error unknown model metadata http+grpc",
        lambda: (
            expect_error(lambda: h.get_model_metadata(unknown), unknown),
            expect_error(lambda: g.get_model_metadata(unknown), unknown),
        ),
    )


def main():
    with open(sys.argv[1]) as f:
        plan = json.load(f)
    models = plan["models"]
    h = httpclient.InferenceServerClient(sys.argv[2], network_timeout=60.0)
    g = grpcclient.InferenceServerClient(sys.argv[3])
    stub = service_pb2_grpc.GRPCInferenceServiceStub(grpc.insecure_channel(sys.argv[3]))
    names = [m["name"] for m in models]
    check_server(h, g, names)
    for model in models:
        check_metadata(model, h, g)
        check_model(model, h, g, stub)
    check_reload(next(m for m in models if m["name"] == plan["reload"]), h, g)
    check_config_override(next(m for m in models if m["name"] == plan["reload"]), h, g)
    check_unknown_model(models[0], h, g)
    # The model with the longest queue delay: its valid answers come well after the errors.
    check_stream_order(next(m for m in models if m["name"] == plan["streamOrder"]), g)
    for model in models:
        check_errors(model, h, g)
    facts["models"] = names
    print(json.dumps({"passed": passed, "failed": failed, "facts": facts}))
    h.close()
    g.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
