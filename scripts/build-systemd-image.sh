#!/usr/bin/env bash
# Build localhost/debian-systemd:<suite>: a Debian root filesystem with systemd as PID 1,
# made with debootstrap and imported into podman (no container registry is reachable).
# Molecule scenarios use it as the stand-in for the Proxmox LXC guest.
set -euo pipefail
suite=${1:-bookworm}
image="localhost/debian-systemd:$suite"
mkdir -p /etc/containers
if [ ! -f /etc/containers/containers.conf ] || ! grep -q 'runtime = "runc"' /etc/containers/containers.conf; then
  cat > /etc/containers/containers.conf <<'CONF'
[containers]
# root here lacks CAP_SYS_RESOURCE: rlimits above these cannot be set.
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
CONF
fi
if podman image exists "$image"; then
  echo "$image already present"; exit 0
fi
mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
mirror=${mirror:-http://deb.debian.org/debian}
rootfs=$(mktemp -d)
trap 'rm -rf "$rootfs"' EXIT
debootstrap --variant=minbase \
  --include=systemd,systemd-sysv,dbus,python3,python3-apt,iproute2,procps,ca-certificates,sudo \
  "$suite" "$rootfs" "$mirror"
echo target > "$rootfs/etc/hostname"
# Let apt inside the container use the same mirror configuration as the host (updates, security).
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  cp /etc/apt/sources.list.d/debian.sources "$rootfs/etc/apt/sources.list.d/debian.sources"
  rm -f "$rootfs/etc/apt/sources.list"
fi
tar -C "$rootfs" -c . | podman import --change 'CMD ["/sbin/init"]' - "$image"
echo "built $image"
