#!/bin/sh
# Runs tritonserver ("$@") for k6-triton and stops it when the process that started it is gone. That
# process holds this script's stdin open and never writes to it, so end of file on stdin means it went
# away, however (killed, crashed), and the server gets SIGTERM. SIGTERM and SIGINT sent to this script are
# passed on, so the caller stops the server as if it had started it directly.
exec 3<&0 </dev/null
"$@" &
server=$!
{
  cat <&3 >/dev/null
  kill -TERM "$server" 2>/dev/null
} &
watcher=$!
exec 3<&-
trap 'kill -TERM "$server" 2>/dev/null' TERM INT
# wait returns early when a trapped signal arrives: wait again until the server itself has exited.
while :; do
  wait "$server"
  code=$?
  kill -0 "$server" 2>/dev/null || break
done
kill "$watcher" 2>/dev/null
exit "$code"
