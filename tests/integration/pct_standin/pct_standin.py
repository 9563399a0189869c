# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Stand-in for Proxmox VE's `pct` on a fake node, for tests (no Proxmox host can exist here).

Installed as /usr/sbin/pct by a two-line wrapper (fakenode.py writes it):
    #!/bin/sh
    exec /usr/bin/python3 /usr/sbin/pct_standin.py "$@"

Real `pct` runs on the node as root and calls PVE's API code as root@pam. This one does the same through
the (fake) PVE API over HTTPS, logged in as root@pam with a password, so `pct set -devN` is subject to the
same schema checks and lands in the same container config the API shows. Every call is appended to a log
(JSON lines) so tests can assert on what ran.

  pct exec VMID -- CMD...     run CMD "in the container": `podman exec -i NAME CMD` when the config maps
                              VMID to a podman container, otherwise locally in a new UTS namespace whose
                              hostname is the container's, in a per-VMID scratch directory
  pct push VMID SRC DST       copy a file into the container (podman cp, or a local copy)
  pct pull VMID SRC DST       copy a file out of it
  pct set VMID -KEY VALUE ... [-delete K1,K2]     PUT .../lxc/VMID/config
  pct config VMID [--current] print the config as `key: value` lines
  pct pending VMID            print the pending changes
  pct status VMID             print `status: running|stopped`
  pct start|stop|shutdown|reboot VMID             run the power task and wait for it
  pct list                    list the node's containers

Config: JSON file named by $PCT_STANDIN_CONFIG (default /etc/pct-standin.json):
  {"log": "/path/pct.log", "scratch": "/path/ct",
   "api": {"url": "https://127.0.0.1:18006", "node": "pve1", "user": "root@pam", "password": "...",
           "cafile": "/path/ca.crt"},
   "podman": {"129": "sglang-demo"}}
Without "api", set/config/status/... are only recorded, and exec runs locally.
Errors are printed like pct prints them and exit with 255.
"""

import json
import os
import shutil
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


class PctError(Exception):
    """An error pct reports on stderr before exiting with 255."""


def load_config():
    path = os.environ.get('PCT_STANDIN_CONFIG', '/etc/pct-standin.json')
    with open(path) as handle:
        return json.load(handle)


def record(cfg, argv):
    if cfg.get('log'):
        with open(cfg['log'], 'a') as handle:
            handle.write(json.dumps({'argv': argv, 'time': time.time()}) + '\n')


class Api:
    """Just enough of a PVE API client: ticket login as root@pam, form-encoded requests."""

    def __init__(self, conf):
        self.base = conf['url'].rstrip('/') + '/api2/json'
        self.node = conf['node']
        self.context = ssl.create_default_context(cafile=conf.get('cafile'))
        ticket = self.call('POST', '/access/ticket', {'username': conf['user'], 'password': conf['password']}, auth=False)
        self.cookie = 'PVEAuthCookie=' + ticket['ticket']
        self.csrf = ticket['CSRFPreventionToken']

    def call(self, method, path, params=None, auth=True):
        data = urllib.parse.urlencode(params or {}).encode()
        url = self.base + path
        if method in ('GET', 'DELETE') and params:
            url, data = url + '?' + data.decode(), None
        request = urllib.request.Request(url, data=data if method not in ('GET', 'DELETE') else None, method=method)
        if auth:
            request.add_header('Cookie', self.cookie)
            request.add_header('CSRFPreventionToken', self.csrf)
        try:
            with urllib.request.urlopen(request, context=self.context, timeout=30) as response:
                return json.load(response)['data']
        except urllib.error.HTTPError as e:
            try:
                errors = json.load(e).get('errors') or {}
            except ValueError:
                errors = {}
            lines = ['{0} {1}'.format(e.code, e.reason)] + ['{0}: {1}'.format(k, v) for k, v in sorted(errors.items())]
            raise PctError('\n'.join(lines)) from None

    def ct(self, vmid, suffix=''):
        return '/nodes/{0}/lxc/{1}{2}'.format(self.node, vmid, suffix)

    def wait(self, upid):
        path = '/nodes/{0}/tasks/{1}/status'.format(self.node, urllib.parse.quote(upid, safe=''))
        while True:
            status = self.call('GET', path)
            if status.get('status') == 'stopped':
                if status.get('exitstatus') != 'OK':
                    raise PctError(status.get('exitstatus'))
                return
            time.sleep(0.2)


def option_pairs(args):
    """-key value / --key value pairs of a pct command line as a dict."""
    out, n = {}, 0
    while n < len(args):
        key = args[n]
        if not key.startswith('-') or n + 1 >= len(args):
            raise PctError("400 wrong number of arguments or bad option '{0}'".format(key))
        out[key.lstrip('-')] = args[n + 1]
        n += 2
    return out


def need_api(cfg):
    if not cfg.get('api'):
        return None
    return Api(cfg['api'])


def config_of(api, vmid, current=False):
    return api.call('GET', api.ct(vmid, '/config'), {'current': 1} if current else None)


def exec_in(cfg, api, vmid, command):
    hostname = 'CT{0}'.format(vmid)
    if api is not None:
        hostname = config_of(api, vmid).get('hostname', hostname)
        if api.call('GET', api.ct(vmid, '/status/current')).get('status') != 'running':
            raise PctError("container '{0}' not running!".format(vmid))
    if not command:
        raise PctError('missing command')
    container = (cfg.get('podman') or {}).get(str(vmid))
    if container:
        os.execvp('podman', ['podman', 'exec', '-i', container] + command)
    scratch = os.path.join(cfg.get('scratch', '/tmp/pct-standin'), str(vmid))
    os.makedirs(scratch, exist_ok=True)
    os.chdir(scratch)
    os.execvp('unshare', ['unshare', '--uts', '--', '/bin/sh', '-c', 'hostname "$0" && exec "$@"', hostname] + command)


def copy(cfg, vmid, src, dst, into):
    container = (cfg.get('podman') or {}).get(str(vmid))
    if container:
        pair = [src, '{0}:{1}'.format(container, dst)] if into else ['{0}:{1}'.format(container, src), dst]
        subprocess.run(['podman', 'cp'] + pair, check=True)
    else:
        shutil.copyfile(src, dst)


def main(argv):
    cfg = load_config()
    record(cfg, argv)
    if not argv:
        raise PctError('no command specified')
    command, rest = argv[0], argv[1:]
    if command == 'list':
        api = need_api(cfg)
        for ct in sorted(api.call('GET', '/nodes/{0}/lxc'.format(api.node)) if api else [], key=lambda c: c['vmid']):
            print('{0:<10} {1:<10} {2}'.format(ct['vmid'], ct['status'], ct.get('name', '')))
        return 0
    if not rest or not rest[0].isdigit():
        raise PctError("400 not enough arguments\npct {0} <vmid>".format(command))
    vmid, args = rest[0], rest[1:]
    if command == 'exec':
        exec_in(cfg, need_api(cfg), vmid, args[1:] if args[:1] == ['--'] else args)
    if command in ('push', 'pull'):
        copy(cfg, vmid, args[0], args[1], into=command == 'push')
        return 0
    api = need_api(cfg)
    if api is None:
        return 0
    if command == 'set':
        api.call('PUT', api.ct(vmid, '/config'), option_pairs(args))
    elif command == 'config':
        config = config_of(api, vmid, current='--current' in args)
        for key in sorted(k for k in config if k != 'digest'):
            print('{0}: {1}'.format(key, config[key]))
    elif command == 'pending':
        for item in api.call('GET', api.ct(vmid, '/pending')):
            print(json.dumps(item, sort_keys=True))
    elif command == 'status':
        print('status: {0}'.format(api.call('GET', api.ct(vmid, '/status/current'))['status']))
    elif command in ('start', 'stop', 'shutdown', 'reboot'):
        api.wait(api.call('POST', api.ct(vmid, '/status/' + command)))
    else:
        raise PctError("unknown command 'pct {0}'".format(command))
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv[1:]))
    except PctError as e:
        sys.stderr.write('{0}\n'.format(e))
        sys.exit(255)
