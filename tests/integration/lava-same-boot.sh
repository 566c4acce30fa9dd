#!/bin/bash
# The same boot locally and through LAVA (issue 43, item 1): a local boot's QEMU command line,
# as the stand-in QEMU gets it, against a qemu LAVA job's for the same kernel and suite (lava
# job): the kernel command line word for word (but for each boot's own seed and LAVA's
# fsbench.shell), the same kernel file (the PVH vmlinux) and initramfs (by their SHA-256), and
# the options that shape the guest (-smp, -cpu, -m, -icount, -nodefaults, -no-reboot) with
# the same values.
# No real boot: fake-qemu.sh records its arguments and the -kernel's hash, and exits.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kgate-lib.sh"
kg_fake_setup
mkdir -p "$W/job"

"$FSBENCH" lava job --kernel "$deb" -o "$W/job/job.yaml" >/dev/null 2>"$W/err" ||
	t_die "lava job: $(cat "$W/err")"
cpio=$(ls "$W"/job/fsbench-initramfs-*.cpio)
# the local boot: the model disk, as under TCG by default; the stand-in writes no result.
# Its -initrd is the cached initramfs and then the boot's own token archive: the hash of as
# many bytes as the job's initramfs has
FAKE_QEMU_ARGS=$W/args FAKE_QEMU_HASH=$W/hash FAKE_QEMU_HASH_PREFIX=$(stat -c %s "$cpio") \
	FAKE_QEMU_SLEEP=0 "$FSBENCH" kernel-run --kernel "$deb" --qemu "$FAKE" --boot-timeout 10s \
	--timeout 30s --workdir "$W/run" >"$W/out" 2>"$W/err"
[ -s "$W/args" ] && [ -s "$W/hash" ] || t_die "the stand-in QEMU was not run: $(cat "$W/err")"

# both sides as lines "OPTION VALUE", the command line without its seed (and fsbench.shell)
/usr/bin/python3 - "$W/args" "$W/job/job.yaml" >"$W/cmp" <<'PY' || t_die "could not read the job"
import re, shlex, sys, yaml
def words(append):
    return " ".join(w for w in append.split() if not w.startswith("fsbench.seed=") and w != "fsbench.shell")
args = open(sys.argv[1]).read().split("\n")
local = {}
for i, a in enumerate(args):
    if a in ("-smp", "-cpu", "-m", "-icount", "-append"):
        local[a] = words(args[i + 1]) if a == "-append" else args[i + 1]
    elif a in ("-nodefaults", "-no-reboot"):
        local[a] = "yes"
job = yaml.safe_load(open(sys.argv[2]))
ctx = job["context"]
lava = {"-m": str(ctx["memory"])}
for o in ctx["extra_options"]:
    k, _, v = o.partition(" ")
    lava[k] = v or "yes"
img = job["actions"][0]["deploy"]["images"]["kernel"]
arg = shlex.split(img["image_arg"])
lava["-append"] = words(arg[arg.index("-append") + 1])
for k in ("-append", "-smp", "-cpu", "-m", "-icount", "-nodefaults", "-no-reboot"):
    print("local", k, local.get(k, "(none)"))
    print("lava", k, lava.get(k, "(none)"))
print("jobkernel", img["url"].removeprefix("file://"))
PY
for o in -append -smp -cpu -m -icount -nodefaults -no-reboot; do
	l=$(grep "^local $o " "$W/cmp" | cut -d' ' -f3-)
	j=$(grep "^lava $o " "$W/cmp" | cut -d' ' -f3-)
	[ "$l" != "(none)" ] || t_fail "the local boot has no $o"
	t_expect_eq "$o in the LAVA job as in a local boot" "$l" "$j"
done
grep -q "^local -append console=ttyS0 quiet .*panic=-1 .*fsbench.disk=model" "$W/cmp" ||
	t_fail "the local command line is not the model disk's: $(grep '^local -append' "$W/cmp")"
jk=$(grep "^jobkernel " "$W/cmp" | cut -d' ' -f2-)
case $(basename "$jk") in vmlinux-*) t_ok "the job boots a vmlinux: $(basename "$jk")" ;; *) t_fail "the job's kernel: $jk" ;; esac
t_expect_eq "the job's kernel is the file a local boot boots" \
	"$(awk '$1 == "kernel" { print $2 }' "$W/hash")" "$(sha256sum "$jk" | cut -d' ' -f1)"
t_expect_eq "the job's initramfs is the one a local boot boots" \
	"$(awk '$1 == "initrd-prefix" { print $2 }' "$W/hash")" "$(sha256sum "$cpio" | cut -d' ' -f1)"
t_done
