# Sourced by the test scripts that start `tilescope serve --port 0` with its output in a log file.
# tilescope_port LOG: prints the port the server chose, read from its "serving ... at http://..." line;
# fails (with the log on stderr) if none appears within 10 s.
tilescope_port() {
  local log=$1 port=""
  for _ in $(seq 1 100); do
    port=$(grep -oE 'http://127\.0\.0\.1:[0-9]+/' "$log" | head -n1 | grep -oE '[0-9]+/$' | tr -d / || true)
    if [ -n "$port" ]; then echo "$port"; return 0; fi
    sleep 0.1
  done
  cat "$log" >&2
  echo "server did not start" >&2
  return 1
}
