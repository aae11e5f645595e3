#!/usr/bin/env bash
# Make the reference execution environment available: a Docker engine and the
# biocoder-eval image (docker/Dockerfile). Idempotent: every step is skipped when
# its result already exists, so a rerun costs a few seconds.
#
# Steps: 1. docker CLI (apt-get install docker.io when missing, root only)
#        2. a reachable engine (starts dockerd in the background when possible; no systemd)
#        3. the base image: pulled from a registry when BIOCODER_BASE_IMAGE names one,
#           else built with debootstrap from Debian's plain-HTTP mirror and `docker import`ed
#           (the tarball is cached under $BIOCODER_CACHE_DIR, so a fresh engine re-imports it)
#        4. centrosome wheel(s) downloaded on the host into docker/wheels/ (the image then
#           installs them offline; TLS from inside containers may not be trusted here)
#        5. docker build, then the image id on stdout (last line).
#
# Exit status: 0 ready; 3 no Docker engine can run here (callers such as CI skip
# Docker tests with the printed reason only then); 1 anything else (build failure...).
#
# Environment: BIOCODER_IMAGE (tag to build, default biocoder-eval:latest),
#   BIOCODER_BASE_IMAGE (default biocoder-base:bullseye; biocoder-base:* names are built
#   with debootstrap, any other name, e.g. debian:bullseye-slim, is pulled),
#   BIOCODER_CACHE_DIR (default $XDG_CACHE_HOME/biocoder or ~/.cache/biocoder), DEBIAN_MIRROR (default
#   http://deb.debian.org/debian; use http://archive.debian.org/debian once bullseye is archived),
#   CENTROSOME_VERSION (default 1.2.3), BIOCODER_REBUILD=1 (rebuild base and image from scratch).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
IMAGE="${BIOCODER_IMAGE:-biocoder-eval:latest}"
BASE_IMAGE="${BIOCODER_BASE_IMAGE:-biocoder-base:bullseye}"
CACHE_DIR="${BIOCODER_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/biocoder}"  # same rule as biocoder_dataset/settings.py
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SUITE=bullseye
CENTROSOME_VERSION="${CENTROSOME_VERSION:-1.2.3}"
REBUILD="${BIOCODER_REBUILD:-0}"
DOCKERD_LOG="${CACHE_DIR}/dockerd.log"
WHEEL_DIR="${REPO_ROOT}/docker/wheels"

log() { printf '[setup_docker] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
no_engine() { log "NO DOCKER ENGINE: $*"; exit 3; }
is_root() { [ "$(id -u)" -eq 0 ]; }

mkdir -p "$CACHE_DIR"

# ---- 1. docker CLI ---------------------------------------------------------------
if ! command -v docker >/dev/null 2>&1; then
    if is_root && command -v apt-get >/dev/null 2>&1; then
        log "installing docker.io with apt-get"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2 || no_engine "apt-get update failed; cannot install docker.io"
        apt-get install -y -qq --no-install-recommends docker.io >&2 \
            || no_engine "apt-get install docker.io failed"
    else
        no_engine "the docker command is missing and cannot be installed here (needs root and apt-get)"
    fi
fi

# ---- 2. a reachable engine -------------------------------------------------------
engine_up() { timeout 20 docker version >/dev/null 2>&1; }
if ! engine_up; then
    if [ -n "${DOCKER_HOST:-}" ] && [ "${DOCKER_HOST}" != "unix:///var/run/docker.sock" ]; then
        no_engine "DOCKER_HOST=${DOCKER_HOST} does not answer 'docker version' (not starting a local dockerd for a remote engine)"
    fi
    if ! is_root; then
        no_engine "'docker version' fails and only root may start dockerd here (is the daemon running? is $(id -un) in the docker group?)"
    fi
    if ! command -v dockerd >/dev/null 2>&1; then
        # A docker CLI alone (some images ship one) is no engine: install Debian's.
        command -v apt-get >/dev/null 2>&1 || no_engine "dockerd is not installed (docker CLI only) and apt-get is unavailable"
        log "dockerd missing: installing docker.io with apt-get"
        export DEBIAN_FRONTEND=noninteractive
        { apt-get install -y -qq --no-install-recommends docker.io >&2 \
            || { apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends docker.io >&2; }; } \
            || no_engine "apt-get install docker.io failed"
        command -v dockerd >/dev/null 2>&1 || no_engine "dockerd is still missing after installing docker.io"
    fi
    if pgrep -x dockerd >/dev/null 2>&1; then
        log "dockerd is running but not answering yet; waiting"
    else
        log "starting dockerd in the background (log: $DOCKERD_LOG)"
        # containerd is started by dockerd itself when not running.
        nohup setsid dockerd >"$DOCKERD_LOG" 2>&1 </dev/null &
    fi
    for _ in $(seq 1 60); do
        engine_up && break
        sleep 1
    done
    engine_up || no_engine "dockerd did not come up within 60 s; last lines of $DOCKERD_LOG:
$(tail -n 15 "$DOCKERD_LOG" 2>/dev/null)"
fi
# An engine that answers but cannot start containers (no overlay, no cgroups, nested
# without privileges) is as good as none: check with the base image below.

have_image() { docker image inspect "$1" >/dev/null 2>&1; }

# ---- 3. base image ---------------------------------------------------------------
build_base_with_debootstrap() {
    local tarball="${CACHE_DIR}/${SUITE}-minbase.tar"
    if [ "$REBUILD" = 1 ]; then rm -f "$tarball"; fi
    if [ ! -s "$tarball" ]; then
        is_root || no_engine "building the base image needs root (debootstrap); or set BIOCODER_BASE_IMAGE=debian:${SUITE}-slim where a registry is reachable"
        if ! command -v debootstrap >/dev/null 2>&1; then
            log "installing debootstrap with apt-get"
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >&2 \
                || { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >&2; } \
                || die "cannot install debootstrap"
        fi
        local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
        if [ ! -s "$keyring" ]; then  # e.g. an Ubuntu host: Debian's keys are a separate package
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debian-archive-keyring >&2 || true
            [ -s "$keyring" ] || die "$keyring is missing (apt-get install debian-archive-keyring); debootstrap needs it to verify $MIRROR"
        fi
        local root
        root="$(mktemp -d "${CACHE_DIR}/rootfs.XXXXXX")"
        # shellcheck disable=SC2064
        trap "rm -rf '$root'" EXIT
        log "debootstrap $SUITE (minbase) from $MIRROR (about a minute)"
        debootstrap --keyring="$keyring" --variant=minbase --components=main "$SUITE" "$root" "$MIRROR" >"${CACHE_DIR}/debootstrap.log" 2>&1 \
            || die "debootstrap failed; see ${CACHE_DIR}/debootstrap.log:
$(tail -n 15 "${CACHE_DIR}/debootstrap.log")"
        # Slim down like the official -slim images: no package lists, caches, docs, man pages.
        rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
            "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/var/log/*.log
        echo "deb $MIRROR $SUITE main" >"$root/etc/apt/sources.list"
        tar --numeric-owner -C "$root" -cf "${tarball}.tmp" .
        mv "${tarball}.tmp" "$tarball"
        rm -rf "$root"
        trap - EXIT
    else
        log "reusing cached base tarball $tarball"
    fi
    docker import \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'CMD ["bash"]' \
        --message "debootstrap --variant=minbase $SUITE $MIRROR" \
        "$tarball" "$BASE_IMAGE" >/dev/null || die "docker import of $tarball failed"
}

if [ "$REBUILD" = 1 ] || ! have_image "$BASE_IMAGE"; then
    if [[ "$BASE_IMAGE" == biocoder-base:* ]]; then  # our own name: build it, never pull it
        build_base_with_debootstrap
    else
        log "pulling base image $BASE_IMAGE"
        docker pull "$BASE_IMAGE" >&2 || die "cannot pull $BASE_IMAGE (no registry access? unset BIOCODER_BASE_IMAGE to build the base with debootstrap)"
    fi
else
    log "base image $BASE_IMAGE present"
fi

# The engine must actually run containers, not just answer the API.
if ! out="$(docker run --rm --network none "$BASE_IMAGE" true 2>&1)"; then
    no_engine "the engine answers but cannot run a container: $out"
fi

# ---- 4. centrosome wheels (host-side download, offline install in the image) -----
if ! ls "$WHEEL_DIR"/centrosome-"${CENTROSOME_VERSION}"-*.whl >/dev/null 2>&1; then
    mkdir -p "$WHEEL_DIR"
    pip_cmd=""
    if python3 -m pip --version >/dev/null 2>&1; then pip_cmd="python3 -m pip"; fi
    if [ -n "$pip_cmd" ]; then
        log "downloading centrosome==$CENTROSOME_VERSION (cp39 manylinux wheel) into docker/wheels/"
        # shellcheck disable=SC2086
        $pip_cmd download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
            --python-version 3.9 --implementation cp --abi cp39 \
            --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
            -d "$WHEEL_DIR" "centrosome==${CENTROSOME_VERSION}" >&2 \
            || log "WARNING: wheel download failed; the image build will try PyPI itself"
    else
        log "WARNING: no pip on the host; the image build will fetch centrosome from PyPI itself"
    fi
fi

# ---- 5. the image ----------------------------------------------------------------
build_args=(--build-arg "BASE_IMAGE=$BASE_IMAGE" --build-arg "DEBIAN_MIRROR=$MIRROR"
            --build-arg "CENTROSOME_VERSION=$CENTROSOME_VERSION")
[ "$REBUILD" = 1 ] && build_args+=(--no-cache)
log "docker build -t $IMAGE (cached layers make this quick after the first time)"
start=$(date +%s)
if ! docker build "${build_args[@]}" -t "$IMAGE" -f "$REPO_ROOT/docker/Dockerfile" "$REPO_ROOT" >"${CACHE_DIR}/build.log" 2>&1; then
    die "docker build failed; last lines of ${CACHE_DIR}/build.log:
$(tail -n 30 "${CACHE_DIR}/build.log")"
fi
log "built $IMAGE in $(( $(date +%s) - start )) s"
docker image inspect --format '{{.Id}}' "$IMAGE"
