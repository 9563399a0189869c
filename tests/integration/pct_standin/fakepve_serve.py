# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Serve fakepve (a Proxmox VE API simulator) for the collection's tests, with a fault-injection socket.

fakepve answers like PVE 8/9, validates every request against the PVE API schema and keeps containers,
tasks and locks. This launcher turns its permission checks on (an ACL entry exists, so PVE's
root@pam-only rules apply: an API token may not set devN), adds an API token, puts the OS template on
the `local` storage, and listens on a Unix socket for the faults a test injects:

    POST /fail          {"method", "suffix", "status", "message", "times"}  -> pve.fail(): an HTTP error
    POST /start_error   {"vmid", "message"}    -> the next start task ends with TASK ERROR: message
    POST /hold_lock     {"vmid"}               -> another job holds the container's config lock
    POST /set_lock      {"vmid", "lock"}       -> a config lock (backup, snapshot, ...) shows in the config
    POST /version       {"version", "release"} -> the PVE version the API reports
    POST /reset         {}                     -> undo the faults above (failures, start errors, locks)
    GET  /state                                -> containers (config, pending, status), tasks, requests

Run: python fakepve_serve.py --port 18006 --cert C --key K --control SOCK --password P --token root@pam!t=S

``--access FILE`` adds tokens of other users and their ACL, as ``pveum user token add`` and ``pveum acl modify``
would on a node: ``{"tokens": {"user@realm!name": "secret"}, "grants": [["user@realm!name", "/", ["Priv", ...]]]}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal

from aiohttp import web
from fakepve import FakePve


def build(args):
    pve = FakePve(user='root@pam', password=args.password, host=args.host, port=args.port)
    pve.time_scale = 0.0
    for token in args.token:
        tokenid, secret = token.split('=', 1)
        pve.apitokens[tokenid] = secret
    # Any ACL entry switches fakepve's permission checks on (PVE's check_ct_modify_config_perm).
    pve.grant('auditor@pve', '/', 'VM.Audit')
    if args.access:
        with open(args.access, encoding='utf-8') as handle:
            access = json.load(handle)
        pve.apitokens.update(access.get('tokens', {}))
        for user, path, privs in access.get('grants', []):
            pve.grant(user, path, *privs)
    for volid in args.template:
        storage, name = volid.split(':', 1)
        pve.store_file(storage, name.split('/', 1)[1], 128 * 1024**2, content='vztmpl')
    pve.storages['local-lvm']['avail'] = args.lvm_gib * 1024**3
    pve.storages['local-lvm']['total'] = args.lvm_gib * 1024**3
    for node in args.node:  # more nodes of the one cluster: they share its storages and answer /nodes/{node}/...
        pve.add_node(node)
    return pve


def control_app(pve):
    routes = web.RouteTableDef()

    async def body(request):
        return await request.json() if request.can_read_body else {}

    @routes.post('/fail')
    async def fail(request):
        p = await body(request)
        pve.fail(p['method'], p['suffix'], p['status'], p['message'], times=p.get('times'))
        return web.json_response({'ok': True})

    @routes.post('/start_error')
    async def start_error(request):
        p = await body(request)
        pve.ct(int(p['vmid'])).start_error = p.get('message')
        return web.json_response({'ok': True})

    @routes.post('/hold_lock')
    async def hold_lock(request):
        p = await body(request)
        await pve.hold_config_lock(int(p['vmid']), None)
        return web.json_response({'ok': True})

    @routes.post('/set_lock')
    async def set_lock(request):
        p = await body(request)
        pve.ct(int(p['vmid'])).lock = p.get('lock')
        return web.json_response({'ok': True})

    @routes.post('/version')
    async def version(request):
        p = await body(request)
        pve.version, pve.release_version = p['version'], p['release']
        return web.json_response({'ok': True})

    @routes.post('/reset')
    async def reset(request):
        pve.failures.clear()
        for ct in pve.cts:
            ct.start_error = None
            ct.lock = None
            pve.release(ct, 'scenario')
        return web.json_response({'ok': True})

    @routes.get('/state')
    async def state(request):
        cts = [{'vmid': ct.vmid, 'node': ct.node, 'status': ct.status, 'config': ct.config, 'pending': ct.pending} for ct in pve.cts]
        tasks = [dict((k, v) for k, v in t.items() if k != 'log') for t in pve.tasklog]
        requests = [[entry[0], entry[1]] for entry in pve.requests]
        return web.json_response({'cts': cts, 'tasks': tasks, 'requests': requests, 'version': pve.version})

    app = web.Application()
    app.add_routes(routes)
    return app


async def serve(args):
    pve = build(args)
    await pve.start(args.cert, args.key)
    runner = web.AppRunner(control_app(pve))
    await runner.setup()
    await web.UnixSite(runner, args.control).start()
    os.chmod(args.control, 0o600)
    print('fakepve listening on {0}, control socket {1}'.format(pve.url, args.control), flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await runner.cleanup()
    await pve.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--host', default='127.0.0.1')
    parser.add_argument('--port', type=int, default=18006)
    parser.add_argument('--cert', required=True)
    parser.add_argument('--key', required=True)
    parser.add_argument('--control', required=True, help='Unix socket for fault injection')
    parser.add_argument('--password', help='root@pam password')
    parser.add_argument('--token', action='append', default=[], help='user@realm!name=secret (repeatable)')
    parser.add_argument('--secrets', help='JSON file with root_password and token_secret (kept out of argv and of the environment, which ansible -vvv prints)')
    parser.add_argument('--token-name', default='root@pam!ansible', help='the token id whose secret --secrets holds')
    parser.add_argument('--access', help='JSON file with other users\' API tokens and their ACL (see above)')
    parser.add_argument('--template', action='append', default=[], help='storage:vztmpl/name to provide')
    parser.add_argument('--lvm-gib', type=int, default=200, help='free space of local-lvm in GiB')
    parser.add_argument('--node', action='append', default=[], help='another cluster node beside pve1 (repeatable)')
    args = parser.parse_args()
    if args.secrets:
        with open(args.secrets, encoding='utf-8') as handle:
            secrets = json.load(handle)
        args.password = secrets['root_password']
        args.token.append('%s=%s' % (args.token_name, secrets['token_secret']))
    if not args.password:
        parser.error('give the root@pam password with --password or --secrets')
    asyncio.run(serve(args))


if __name__ == '__main__':
    main()
