# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A fake Proxmox VE node reached over real SSH on loopback, for tests (no Proxmox host can exist here).

`start` prepares a state directory and then, in a private mount namespace, runs the machine's own sshd
(foreground, bound to 127.0.0.1) with its own host key and authorized key. In that namespace, and only
there, the node looks like a PVE node with NVIDIA GPUs, as declared in a JSON file:

  /usr/sbin/pct                 the pct stand-in (./pct_standin.py), configured by /etc/pct-standin.json
  /usr/bin/nvidia-smi           prints the declared GPUs (--query-gpu=... --format=csv,...; -L) and their compute
                                processes (--query-compute-apps=...: the declared "processes", none by default)
  /usr/bin/nvidia-modprobe      -u creates /dev/nvidia-uvm{,-tools}; -cN creates /dev/nvidiaN
  /usr/bin/udevadm              records its arguments
  /proc/driver/nvidia/version, /proc/driver/nvidia/gpus/<bus>/information, /sys/module/nvidia/version
  /dev/nvidiaN (195:minor), /dev/nvidiactl (195:255), /dev/nvidia-caps/nvidia-capN; /dev/nvidia-uvm only
                                when the data says the module was already used ("uvm_present": true)
  /etc                          an overlay: what the tests write there lands in <state>/etc-upper

The process started by `start` becomes sshd (same PID through every exec), so a test stops the node by
killing that PID; the namespace and its mounts go with it. Node data (JSON):

  {"driver_version": "550.54.14", "uvm_major": 508, "caps_major": 511, "caps": [1, 2],
   "uvm_present": false,
   "gpus": [{"index": 0, "minor": 0, "uuid": "GPU-...", "name": "NVIDIA H100 80GB HBM3",
             "pci_bus_id": "00000000:18:00.0", "memory_total_mib": 81559, "memory_used_mib": 0,
             "compute_cap": "9.0"}]}

Usage: python3 fakenode.py start --state DIR --port 18022 --authorized-key KEY.pub --node-data NODE.json
                                 --pct-config PCT.json     (run in the background; needs root)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import stat
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NVIDIA_MAJOR = 195

NVIDIA_SMI = r'''#!/usr/bin/python3
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""nvidia-smi stand-in: the GPUs declared in /etc/fakenode/node.json."""
import json, sys
node = json.load(open('/etc/fakenode/node.json'))
args = sys.argv[1:]
if '-L' in args:
    for g in node['gpus']:
        print('GPU {0}: {1} (UUID: {2})'.format(g['index'], g['name'], g['uuid']))
    sys.exit(0)
query = [a.split('=', 1)[1] for a in args if a.startswith('--query-gpu=')]
apps = [a.split('=', 1)[1] for a in args if a.startswith('--query-compute-apps=')]
fmt = [a.split('=', 1)[1] for a in args if a.startswith('--format=')]
if not (query or apps) or not fmt or 'csv' not in fmt[0]:
    sys.stderr.write('nvidia-smi stand-in: only --query-gpu=... or --query-compute-apps=... '
                     '--format=csv[,noheader][,nounits] and -L\n')
    sys.exit(2)
if apps:
    # Like nvidia-smi: one row per process, nothing (or only the header) when no process holds GPU memory.
    fields = apps[0].split(',')
    if 'noheader' not in fmt[0]:
        print(', '.join(fields))
    for p in node.get('processes', []):
        unit = '' if 'nounits' in fmt[0] else ' MiB'
        print(', '.join(str(p[f]) + (unit if f == 'used_memory' else '') for f in fields))
    sys.exit(0)
fields = query[0].split(',')
names = {'index': 'index', 'uuid': 'uuid', 'name': 'name', 'pci.bus_id': 'pci_bus_id',
         'memory.total': 'memory_total_mib', 'memory.used': 'memory_used_mib', 'memory.free': None,
         'driver_version': None, 'compute_cap': 'compute_cap'}
unknown = [f for f in fields if f not in names]
if unknown:
    sys.stderr.write('Field "{0}" is not a valid field to query.\n'.format(unknown[0]))
    sys.exit(2)
if 'noheader' not in fmt[0]:
    print(', '.join(fields))
for g in sorted(node['gpus'], key=lambda g: g['index']):
    row = []
    for f in fields:
        if f == 'driver_version':
            value = node['driver_version']
        elif f == 'memory.free':
            value = g['memory_total_mib'] - g.get('memory_used_mib', 0)
        else:
            value = g.get(names[f], 0)
        if f.startswith('memory.') and 'nounits' not in fmt[0]:
            value = '{0} MiB'.format(value)
        row.append(str(value))
    print(', '.join(row))
'''

NVIDIA_MODPROBE = r'''#!/usr/bin/python3
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""nvidia-modprobe stand-in: creates the device nodes the real one creates."""
import json, os, re, stat, sys
node = json.load(open('/etc/fakenode/node.json'))
with open(node['log_dir'] + '/nvidia-modprobe.log', 'a') as log:
    log.write(' '.join(sys.argv[1:]) + '\n')
def mknod(path, major, minor):
    if not os.path.exists(path):
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(major, minor))
        os.chmod(path, 0o666)
args = ' '.join(sys.argv[1:])
if re.search(r'(^| )(-u|--unified-memory)( |$)', args):
    mknod('/dev/nvidia-uvm', node['uvm_major'], 0)
    mknod('/dev/nvidia-uvm-tools', node['uvm_major'], 1)
minors = set(g['minor'] for g in node['gpus'])
for m in re.findall(r'(?:-c ?|--create-nvidia-device-file=)(\d+)', args):
    if int(m) in minors:
        mknod('/dev/nvidia' + m, 195, int(m))
        mknod('/dev/nvidiactl', 195, 255)
'''

PCT = '''#!/bin/sh
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
exec /usr/bin/python3 /usr/sbin/pct_standin.py "$@"
'''

UDEVADM = r'''#!/bin/sh
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# udevadm stand-in: records its arguments (there is no udev daemon on the fake node).
echo "$*" >> "$(python3 -c 'import json; print(json.load(open("/etc/fakenode/node.json"))["log_dir"])')/udevadm.log"
'''


def write_exec(path, text):
    with open(path, 'w') as handle:
        handle.write(text)
    os.chmod(path, 0o755)


def prepare(args):
    state = os.path.abspath(args.state)
    for sub in ('etc-upper', 'etc-work', 'dev-upper', 'dev-work'):
        shutil.rmtree(os.path.join(state, sub), ignore_errors=True)  # every start is a freshly booted node
    for sub in ('sbin', 'bin', 'etc-upper', 'etc-work', 'dev-upper', 'dev-work', 'ssh', 'log', 'ct'):
        os.makedirs(os.path.join(state, sub), exist_ok=True)
    shutil.copy(os.path.join(HERE, 'pct_standin.py'), os.path.join(state, 'sbin', 'pct_standin.py'))
    write_exec(os.path.join(state, 'sbin', 'pct'), PCT)
    write_exec(os.path.join(state, 'bin', 'nvidia-smi'), NVIDIA_SMI)
    write_exec(os.path.join(state, 'bin', 'nvidia-modprobe'), NVIDIA_MODPROBE)
    write_exec(os.path.join(state, 'bin', 'udevadm'), UDEVADM)
    with open(args.node_data) as handle:
        node = json.load(handle)
    node['log_dir'] = os.path.join(state, 'log')
    os.makedirs(os.path.join(state, 'etc-upper', 'fakenode'), exist_ok=True)
    with open(os.path.join(state, 'etc-upper', 'fakenode', 'node.json'), 'w') as handle:
        json.dump(node, handle, indent=1)
    with open(args.pct_config) as handle:
        pct = json.load(handle)
    pct.setdefault('log', os.path.join(state, 'log', 'pct.log'))
    pct.setdefault('scratch', os.path.join(state, 'ct'))
    with open(os.path.join(state, 'etc-upper', 'pct-standin.json'), 'w') as handle:
        json.dump(pct, handle, indent=1)
    hostkey = os.path.join(state, 'ssh', 'ssh_host_ed25519_key')
    if not os.path.exists(hostkey):
        subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', hostkey], check=True)
    shutil.copy(args.authorized_key, os.path.join(state, 'ssh', 'authorized_keys'))
    with open(os.path.join(state, 'ssh', 'sshd_config'), 'w') as handle:
        handle.write(
            '\n'.join(
                [
                    'ListenAddress 127.0.0.1',
                    'Port {0}'.format(args.port),
                    'HostKey ' + hostkey,
                    'PidFile ' + os.path.join(state, 'ssh', 'sshd.pid'),
                    'AuthorizedKeysFile ' + os.path.join(state, 'ssh', 'authorized_keys'),
                    'PermitRootLogin prohibit-password',
                    'PasswordAuthentication no',
                    'KbdInteractiveAuthentication no',
                    'UsePAM no',
                    'StrictModes no',
                    'PrintMotd no',
                    'AcceptEnv LANG LC_*',
                    'Subsystem sftp internal-sftp',
                    'LogLevel ERROR',
                    '',
                ]
            )
        )
    os.makedirs('/run/sshd', mode=0o755, exist_ok=True)  # sshd's privilege separation directory
    return state


def mount(*argv):
    subprocess.run(['mount'] + list(argv), check=True)


def mknod(path, major, minor, mode=0o666):
    os.mknod(path, mode | stat.S_IFCHR, os.makedev(major, minor))
    os.chmod(path, mode)


def inside(state):
    """In the new mount namespace: lay out the fake node, then become sshd."""

    def join(*parts):
        return os.path.join(state, *parts)

    mount('-t', 'overlay', 'overlay', '-o', 'lowerdir={0}:/usr/sbin'.format(join('sbin')), '/usr/sbin')
    mount('-t', 'overlay', 'overlay', '-o', 'lowerdir={0}:/usr/bin'.format(join('bin')), '/usr/bin')
    mount('-t', 'overlay', 'overlay', '-o', 'lowerdir=/etc,upperdir={0},workdir={1}'.format(join('etc-upper'), join('etc-work')), '/etc')
    mount('-t', 'overlay', 'overlay', '-o', 'lowerdir=/dev,upperdir={0},workdir={1}'.format(join('dev-upper'), join('dev-work')), '/dev')
    mount('-t', 'devpts', '-o', 'newinstance,ptmxmode=0666,mode=0620', 'devpts', '/dev/pts')
    mount('--bind', '/dev/pts/ptmx', '/dev/ptmx')
    mount('-t', 'tmpfs', '-o', 'mode=0755', 'tmpfs', '/proc/driver')
    mount('-t', 'tmpfs', '-o', 'mode=0755', 'tmpfs', '/sys/module')
    with open('/etc/fakenode/node.json') as handle:
        node = json.load(handle)
    os.makedirs('/proc/driver/nvidia/gpus')
    with open('/proc/driver/nvidia/version', 'w') as handle:
        handle.write(
            'NVRM version: NVIDIA UNIX x86_64 Kernel Module  {0}  Thu Feb 22 01:44:30 UTC 2024\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n'.format(
                node['driver_version']
            )
        )
    os.makedirs('/sys/module/nvidia')
    with open('/sys/module/nvidia/version', 'w') as handle:
        handle.write(node['driver_version'] + '\n')
    for gpu in node['gpus']:
        bus = gpu['pci_bus_id'][-12:].lower()
        os.makedirs('/proc/driver/nvidia/gpus/' + bus)
        with open('/proc/driver/nvidia/gpus/{0}/information'.format(bus), 'w') as handle:
            handle.write(
                'Model: \t\t {0}\nGPU UUID: \t {1}\nBus Type: \t PCIe\nBus Location: \t {2}\nDevice Minor: \t {3}\nGPU Excluded:\t No\n'.format(
                    gpu['name'], gpu['uuid'], bus, gpu['minor']
                )
            )
        mknod('/dev/nvidia{0}'.format(gpu['minor']), NVIDIA_MAJOR, gpu['minor'])
    mknod('/dev/nvidiactl', NVIDIA_MAJOR, 255)
    if node.get('uvm_present'):
        mknod('/dev/nvidia-uvm', node['uvm_major'], 0)
        mknod('/dev/nvidia-uvm-tools', node['uvm_major'], 1)
    if node.get('caps'):
        os.makedirs('/dev/nvidia-caps', exist_ok=True)
        for cap in node['caps']:
            mknod('/dev/nvidia-caps/nvidia-cap{0}'.format(cap), node['caps_major'], cap, 0o444)
    for directory in ('/etc/pve/lxc', '/etc/udev/rules.d', '/etc/modules-load.d'):
        os.makedirs(directory, exist_ok=True)
    sshd = shutil.which('sshd') or '/usr/sbin/sshd'
    os.execv(sshd, [sshd, '-D', '-e', '-f', join('ssh', 'sshd_config')])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest='command', required=True)
    start = sub.add_parser('start')
    start.add_argument('--state', required=True)
    start.add_argument('--port', type=int, required=True)
    start.add_argument('--authorized-key', required=True)
    start.add_argument('--node-data', required=True)
    start.add_argument('--pct-config', required=True)
    inner = sub.add_parser('inside')
    inner.add_argument('--state', required=True)
    args = parser.parse_args()
    if args.command == 'start':
        state = prepare(args)
        os.execvp('unshare', ['unshare', '--mount', '--propagation', 'private', sys.executable, os.path.abspath(__file__), 'inside', '--state', state])
    inside(os.path.abspath(args.state))


if __name__ == '__main__':
    main()
