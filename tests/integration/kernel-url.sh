#!/bin/bash
# kernel-gate --baseline-url / --candidate-url and kernel-run --kernel-url (issue 43, item 7):
# a kernel a lab serves over http(s), fetched once into the work directory with its SHA-256.
# Against a file server of this test's own (a port it binds itself): the usage refusals
# (exit 2, before any request), a 404, a file over the bound, a redirect to another
# protocol (each 125 naming the URL), and a fetched file whose SHA-256 fsbench says and
# records. QEMU is /bin/false: nothing boots.
. "$(dirname "$0")/lib.sh"
W=$T_SCRATCH
mkdir -p "$W/srv"

# the server: the files of $W/srv, /huge announcing 2 GiB, /ftp redirecting to ftp://;
# every request logged to $W/requests; it binds port 0 and says which in $W/port
cat >"$W/serve.py" <<'PY'
import functools, http.server, os, sys
class H(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        with open(sys.argv[3], "a") as f:
            f.write(self.path + "\n")
        if self.path == "/huge":
            self.send_response(200)
            self.send_header("Content-Length", str(2 << 30))
            self.end_headers()
            return
        if self.path == "/ftp":
            self.send_response(302)
            self.send_header("Location", "ftp://127.0.0.1/bzImage")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        super().do_GET()
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(H, directory=sys.argv[2]))
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.server_address[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.serve_forever()
PY
t_daemon "$W/server.log" /usr/bin/python3 "$W/serve.py" "$W/port" "$W/srv" "$W/requests"
for _ in $(seq 100); do [ -s "$W/port" ] && break; sleep 0.1; done
[ -s "$W/port" ] || t_die "the file server did not start: $(cat "$W/server.log")"
url=http://127.0.0.1:$(cat "$W/port")
: >"$W/requests"

# (1) usage: exit 2 with the words, before any request
refused() { # WORDS ARGS...: exit 2 and WORDS on stderr
	local words=$1
	shift
	"$FSBENCH" "$@" >/dev/null 2>"$W/err"
	t_expect_eq "$* : exit" 2 $?
	grep -qF -- "$words" "$W/err" || t_fail "$*: '$words' not said: $(cat "$W/err")"
}
refused "--kernel-url ftp://127.0.0.1/bzImage: not an http:// or https:// URL with a host" \
	kernel-run --kernel-url ftp://127.0.0.1/bzImage
refused "--kernel-url https:///bzImage: not an http:// or https:// URL with a host" \
	kernel-run --kernel-url https:///bzImage
refused "--kernel-url: a space, quote, backslash or control character at byte $((${#url} + 2))" \
	kernel-run --kernel-url "$url/a b"
refused "--kernel-url: a space, quote, backslash or control character" \
	kernel-run --kernel-url "$url/a'b"
refused "--kernel and --kernel-url: one or the other" \
	kernel-run --kernel /bin/true --kernel-url "$url/bzImage"
refused "--kernel is needed (or --kernel-url)" kernel-run
refused "--baseline and --candidate are both needed (or --baseline-url, --candidate-url)" \
	kernel-gate --baseline-url "$url/bzImage"
refused "--baseline and --baseline-url: one or the other" \
	kernel-gate --baseline /bin/true --baseline-url "$url/bzImage" --candidate-url "$url/bzImage"
refused "a .deb brings its own modules; --baseline-modules would be ignored" \
	kernel-gate --baseline-url "$url/linux-image.deb" --baseline-modules "$W" --candidate /bin/true
# with --lava the same check, before the server is asked anything
echo not-a-token >"$W/token" && chmod 0600 "$W/token"
refused "--candidate-url ftp://127.0.0.1/k: not an http:// or https:// URL with a host" \
	kernel-gate --lava "$url/" --lava-token-file "$W/token" --baseline-url "$url/bzImage" \
	--candidate-url ftp://127.0.0.1/k
[ -s "$W/requests" ] && t_fail "a refused command line fetched: $(cat "$W/requests")" ||
	t_ok "no request for a refused command line"

# (2) a 404: one line naming the URL and the status, 125, nothing left in the work directory
"$FSBENCH" kernel-run --kernel-url "$url/nothere" --qemu /bin/false --workdir "$W/wd404" >/dev/null 2>"$W/err"
t_expect_eq "kernel-run of a 404: exit" 125 $?
t_expect_eq "kernel-run of a 404: the error" "fsbench kernel-run: kernel: fetching $url/nothere: HTTP 404" "$(cat "$W/err")"
t_expect_eq "what a failed fetch leaves in the work directory" "" "$(ls -A "$W/wd404")"
# the gate's document says so, marked incomplete, as other early failures
: >"$W/bz" # not looked at: the baseline's fetch fails first
"$FSBENCH" kernel-gate --baseline-url "$url/nothere.deb" --candidate "$W/bz" --qemu /bin/false \
	--workdir "$W/wdg" --json "$W/gate.json" >/dev/null 2>"$W/err"
t_expect_eq "kernel-gate of a 404: exit" 125 $?
grep -qF "baseline: fetching $url/nothere.deb: HTTP 404" "$W/err" || t_fail "the gate's 404 not said: $(cat "$W/err")"
t_expect_eq "the document, incomplete" "false 125 cannot judge" \
	"$(t_json "$W/gate.json" '"\(.complete) \(.exit) \(.verdict)"')"
t_expect_eq "the document's baseline URL" "$url/nothere.deb" "$(t_json "$W/gate.json" .baseline.url)"
t_json "$W/gate.json" .reason | grep -q "HTTP 404" || t_fail "the document's reason: $(t_json "$W/gate.json" .reason)"

# (3) over the bound (1 GiB; announced, so refused before a byte), and a redirect to ftp://
"$FSBENCH" kernel-run --kernel-url "$url/huge" --qemu /bin/false --workdir "$W/wdhuge" >/dev/null 2>"$W/err"
t_expect_eq "kernel-run of 2 GiB: exit" 125 $?
t_expect_eq "kernel-run of 2 GiB: the error" \
	"fsbench kernel-run: kernel: fetching $url/huge: larger than 1024 MiB, the most fsbench takes for a kernel" \
	"$(cat "$W/err")"
"$FSBENCH" kernel-run --kernel-url "$url/ftp" --qemu /bin/false --workdir "$W/wdftp" >/dev/null 2>"$W/err"
t_expect_eq "kernel-run redirected to ftp://: exit" 125 $?
grep -q "fetching $url/ftp: .*ftp" "$W/err" || t_fail "the redirect to ftp:// was not refused: $(cat "$W/err")"

# (4) a fetched file: its SHA-256 said, the file in the work directory (0600), and resolved
# as --kernel FILE would be (not a bzImage: 125, the URL and the hash in the line)
head -c 100000 /dev/urandom >"$W/srv/bzImage-fake"
sum=$(sha256sum "$W/srv/bzImage-fake" | cut -d' ' -f1)
"$FSBENCH" kernel-run --kernel-url "$url/bzImage-fake" --qemu /bin/false --workdir "$W/wdok" >/dev/null 2>"$W/err"
t_expect_eq "kernel-run of a file that is no kernel: exit" 125 $?
grep -qF "fsbench kernel-run: kernel ($url/bzImage-fake, sha256 $sum): kernel $W/wdok/fetched-kernel-" "$W/err" &&
	grep -qF "not a bzImage" "$W/err" && t_ok "the URL and its SHA-256 said" ||
	t_fail "no URL and SHA-256 $sum in: $(cat "$W/err")"
f=$(ls "$W"/wdok/fetched-kernel-*/bzImage-fake)
t_expect_eq "the fetched file's SHA-256" "$sum" "$(sha256sum "$f" | cut -d' ' -f1)"
t_expect_eq "the fetched file's mode" 600 "$(stat -c %a "$f")"
t_expect_eq "requests for it" 1 "$(grep -c '^/bzImage-fake$' "$W/requests")"
# the gate's document records both URLs, the fetched one's hash
"$FSBENCH" kernel-gate --baseline-url "$url/bzImage-fake" --candidate-url "$url/bzImage-fake" \
	--qemu /bin/false --workdir "$W/wdg2" --json "$W/gate2.json" >/dev/null 2>"$W/err"
t_expect_eq "kernel-gate of a file that is no kernel: exit" 125 $?
t_expect_eq "the document's baseline" "$url/bzImage-fake $sum" \
	"$(t_json "$W/gate2.json" '"\(.baseline.url) \(.baseline.sha256)"')"

# a real kernel package where CI keeps one: resolved, its initramfs built, the boot fails
# (/bin/false), and each boot's record and the document hold the URL and the SHA-256
deb=/var/cache/fsbench/ci-kernels/linux-image-6.1.0-57-amd64_6.1.192-3_amd64.deb
if [ -r "$deb" ]; then
	ln -s "$deb" "$W/srv/"
	dsum=$(sha256sum "$deb" | cut -d' ' -f1)
	d=$url/$(basename "$deb")
	"$FSBENCH" kernel-gate --baseline-url "$d" --candidate-url "$d" --qemu /bin/false \
		--workdir "$W/wdd" >"$W/out" 2>"$W/err"
	t_expect_eq "kernel-gate of a served .deb, booted by /bin/false: exit" 125 $?
	grep -qF "fsbench kernel-gate: baseline: fetched $d, sha256 $dsum" "$W/err" ||
		t_fail "the fetch not said: $(cat "$W/err")"
	t_expect_eq "the document's baseline" "$d $dsum 6.1.0-57-amd64" \
		"$(t_json "$W/wdd/kernel-gate.json" '"\(.baseline.url) \(.baseline.sha256) \(.baseline.release)"')"
	# resolved beneath the work directory held (kg_fd_path), recorded by the path a user knows
	case $(t_json "$W/wdd/kernel-gate.json" .baseline.spec) in
	"$W"/wdd/fetched-baseline-*/"$(basename "$deb")") t_ok "the document's baseline spec is the fetched file" ;;
	*) t_fail "the document's baseline spec: $(t_json "$W/wdd/kernel-gate.json" .baseline.spec)" ;;
	esac
	t_expect_eq "each boot's record" "$d $dsum" \
		"$(t_json "$W/wdd/kernel-gate.json" '[.boots[].kernel | "\(.url) \(.sha256)"] | unique | .[]')"
else
	echo "note: $deb not here: the .deb case skipped"
fi
t_done
