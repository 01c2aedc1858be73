# base-top-level.sh: the top of the base system's snapshot (sandbox/base-system.ts): the
# host's top-level symlinks (`/bin -> usr/bin` on merged-/usr systems) and the mount points
# of its system folders. Run as host root on a folder of ours.
# Arguments, all ours: $1 the snapshot folder; then pairs NAME TARGET, then `--`; then the
# folders to make.
cd "$1" && shift && while [ "$1" != -- ]; do ln -sfn "$2" "$1"; shift 2; done; shift
for f in "$@"; do mkdir -p "$f"; done
