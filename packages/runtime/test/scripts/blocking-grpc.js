// A module blocking VUs lack (k6/net/grpc) in a run forced to blocking mode: refused at load, naming it.
import grpc from 'k6/net/grpc';

const client = new grpc.Client();

export default function () {
  client.close();
}
