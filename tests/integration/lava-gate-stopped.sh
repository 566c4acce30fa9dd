#!/bin/bash
# kernel-gate --lava that stops without a verdict (issue 43, item 6), and a job whose worker
# LAVA reports Offline (lost, not a timeout): a LAVA server that
# refuses the token (403, as a wrong token gets) is "cannot judge" (125), and the gate still
# writes its --json document, marked incomplete, with the verdict and the reason, so a CI
# that reads the document finds one. The server is a stand-in on a port of its own choosing.
. "$(dirname "$0")/lib.sh"
W=$T_SCRATCH

# a LAVA stand-in: every request answered 403 as LAVA answers a wrong token; it binds a free
# port itself and says which in $W/port (no port picked and then raced for)
cat >"$W/lava-403.py" <<'PY'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def answer(self):
        body = b'{"detail": "Invalid token."}'
        self.send_response(403)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    do_GET = do_POST = answer
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.server_address[1])
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.serve_forever()
PY
t_daemon "$W/server.log" /usr/bin/python3 "$W/lava-403.py" "$W/port"
for _ in $(seq 100); do [ -s "$W/port" ] && break; sleep 0.1; done
[ -s "$W/port" ] || t_die "the LAVA stand-in did not start: $(cat "$W/server.log")"
url=http://127.0.0.1:$(cat "$W/port")/

echo not-a-token >"$W/token" && chmod 0600 "$W/token"
# the kernels are not looked into before the server answers: any files do
: >"$W/k1" && : >"$W/k2"
"$FSBENCH" kernel-gate --lava "$url" --lava-token-file "$W/token" --baseline "$W/k1" --candidate "$W/k2" \
	--workdir "$W" --json "$W/kernel-gate.json" >"$W/out" 2>"$W/err"
t_expect_eq "kernel-gate with a refused token: exit" 125 $?
grep -q "403" "$W/err" || t_fail "the 403 is not said: $(cat "$W/err")"
[ -s "$W/kernel-gate.json" ] || t_die "no --json document: $(cat "$W/err")"
t_expect_eq "the document's verdict" "cannot judge" "$(t_json "$W/kernel-gate.json" .verdict)"
t_expect_eq "the document's exit" 125 "$(t_json "$W/kernel-gate.json" .exit)"
t_expect_eq "the document is marked incomplete" false "$(t_json "$W/kernel-gate.json" .complete)"
t_json "$W/kernel-gate.json" .reason | grep -q "403" ||
	t_fail "the document's reason lacks the server's 403: $(t_json "$W/kernel-gate.json" .reason)"
t_expect_eq "the document's kernels" "$W/k1 $W/k2" "$(t_json "$W/kernel-gate.json" '"\(.baseline.spec) \(.candidate.spec)"')"
t_expect_eq "the document's suite" kgate "$(t_json "$W/kernel-gate.json" .suite)"

# lava submit of several jobs with -o DIR makes DIR when it is not there (issue 43 item 6:
# it had to exist, exit 2); a DIR that is a file is still refused, and the server's 403 said
printf 'job_name: a\n' >"$W/j1.yaml" && printf 'job_name: b\n' >"$W/j2.yaml"
"$FSBENCH" lava submit "$W/j1.yaml" "$W/j2.yaml" --lava "$url" --lava-token-file "$W/token" -o "$W/res" \
	>/dev/null 2>"$W/err"
rc=$?
[ -d "$W/res" ] && t_ok "lava submit -o DIR made DIR (then exit $rc: $(tail -1 "$W/err"))" ||
	t_fail "lava submit -o DIR: no directory (exit $rc: $(cat "$W/err"))"
grep -q 403 "$W/err" || t_fail "lava submit: the 403 is not said: $(cat "$W/err")"
: >"$W/afile"
"$FSBENCH" lava submit "$W/j1.yaml" "$W/j2.yaml" --lava "$url" --lava-token-file "$W/token" -o "$W/afile" \
	>/dev/null 2>"$W/err"
t_expect_eq "lava submit -o a file: exit" 2 $?

# a usage error is found before any work: no document
rm -f "$W/kernel-gate.json"
"$FSBENCH" kernel-gate --lava "$url" --baseline "$W/k1" --candidate "$W/k2" --json "$W/kernel-gate.json" \
	>/dev/null 2>"$W/err"
t_expect_eq "--lava without a token file: exit" 2 $?
[ ! -e "$W/kernel-gate.json" ] || t_fail "a usage error wrote a gate document"
# a worker lost in the middle of a job (issue 43): the stand-in's job runs on qemu-01 of
# worker w1, which LAVA reports Offline; the wait ends after LAVA_WORKER_LOST_S (15 s) with
# the worker named, cancels the job, and is "cannot judge" (125), not a 45-minute timeout
cat >"$W/lava-lost.py" <<'PY'
import http.server, json, sys
class H(http.server.BaseHTTPRequestHandler):
    def send(self, obj):
        body = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_POST(self):
        self.send({"job_ids": [7]})
    def do_GET(self):
        if self.path.endswith("/cancel/"): # LAVA's REST API cancels by GET
            open(sys.argv[1] + ".canceled", "w").write(self.path + "\n")
            self.send({})
        elif self.path.startswith("/api/v0.2/jobs/7/"):
            self.send({"state": "Running", "health": "Unknown", "actual_device": "qemu-01", "failure_comment": None})
        elif self.path.startswith("/api/v0.2/devices/qemu-01/"):
            self.send({"hostname": "qemu-01", "worker_host": "w1", "state": "Running"})
        elif self.path.startswith("/api/v0.2/workers/w1/"):
            self.send({"hostname": "w1", "state": "Offline", "health": "Active"})
        else:
            self.send_response(404)
            self.end_headers()
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.server_address[1])
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.serve_forever()
PY
t_daemon "$W/lost.log" /usr/bin/python3 "$W/lava-lost.py" "$W/lport"
for _ in $(seq 100); do [ -s "$W/lport" ] && break; sleep 0.1; done
[ -s "$W/lport" ] || t_die "the lost-worker stand-in did not start: $(cat "$W/lost.log")"
echo abc123 >"$W/token2" && chmod 0600 "$W/token2"
t0=$(date +%s)
"$FSBENCH" lava submit "$W/j1.yaml" --lava "http://127.0.0.1:$(cat "$W/lport")/" --lava-token-file "$W/token2" \
	--wait --timeout 10m >"$W/lost.out" 2>&1
rc=$?
dt=$(($(date +%s) - t0))
t_expect_eq "a job whose worker is offline: exit" 125 "$rc"
grep -Eq "cannot judge: job 7 (.*): worker w1 \(device qemu-01\) offline for (1[5-9]|[23][0-9]) s: lost \(canceled\)" "$W/lost.out" &&
	[ "$dt" -lt 60 ] && t_ok "lost after $dt s: $(tail -1 "$W/lost.out")" || t_fail "lost worker ($dt s): $(cat "$W/lost.out")"
grep -q "/api/v0.2/jobs/7/cancel/" "$W/lport.canceled" 2>/dev/null && t_ok "the lost job canceled" ||
	t_fail "the lost job was not canceled"
t_done
