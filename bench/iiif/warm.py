"""One sequential pass over a request list on one keep-alive connection: warms what each
server keeps (tilescope's tile files, iipsrv's tile cache) and reports first-pass speed."""
import http.client, sys, time
host, port, path_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
paths = [p for p in open(path_file).read().split("\n") if p]
connection = http.client.HTTPConnection(host, port, timeout=60)
bad = 0
start = time.monotonic()
for path in paths:
    connection.request("GET", path)
    reply = connection.getresponse()
    reply.read()
    if reply.status != 200:
        bad += 1
        if bad <= 3:
            print(f"{reply.status} for {path}", file=sys.stderr)
seconds = time.monotonic() - start
print(f'{{"requests": {len(paths)}, "seconds": {seconds:.3f}, "bad_status": {bad}}}')
