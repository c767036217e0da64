// Runs in the image's build stage, on the base image's Node, with no shell and no network: lays
// out the final image's root filesystem in ROOTFS from the build context (CONTEXT) and the base.
// Usage: node assemble.cjs CONTEXT ROOTFS
'use strict'
const fs = require('node:fs')
const path = require('node:path')

const [context, rootfs] = process.argv.slice(2)
if (!context || !rootfs) {
  console.error('usage: node assemble.cjs CONTEXT ROOTFS')
  process.exit(2)
}

/** Copies a file's content (a symbolic link followed) to the same path under ROOTFS. */
function copyToRootfs(file) {
  const target = path.join(rootfs, file)
  fs.mkdirSync(path.dirname(target), { recursive: true })
  fs.copyFileSync(fs.realpathSync(file), target)
  fs.chmodSync(target, fs.statSync(file).mode & 0o755)
}

// Node and the shared libraries this very process loaded (its dynamic loader included), at the
// paths it loaded them from: whatever the base image, the final one needs these and nothing more.
copyToRootfs(process.execPath)
const loaded = process.report.getReport().sharedObjects.filter((file) => path.isAbsolute(file))
for (const file of loaded) copyToRootfs(file)

// The packed package (its tarball, unpacked by ADD) and its one runtime dependency, installed as
// npm would: node_modules/taxonomy-mock beside node_modules/@redis/client.
const modules = path.join(rootfs, 'app/node_modules')
fs.mkdirSync(path.join(modules, '@redis'), { recursive: true })
fs.cpSync(path.join(context, 'unpacked/package'), path.join(modules, 'taxonomy-mock'), {
  recursive: true,
})
fs.cpSync(path.join(context, 'node_modules/@redis/client'), path.join(modules, '@redis/client'), {
  recursive: true,
})
fs.copyFileSync(path.join(context, 'healthcheck.cjs'), path.join(rootfs, 'app/healthcheck.cjs'))

// A user to run as (a numeric one, which Kubernetes' runAsNonRoot can check), host lookups from
// /etc/hosts then DNS, and an empty /tmp for a writable volume to cover.
fs.mkdirSync(path.join(rootfs, 'etc'), { recursive: true })
fs.writeFileSync(
  path.join(rootfs, 'etc/passwd'),
  'root:x:0:0:root:/root:/sbin/nologin\ntaxonomy-mock:x:10001:10001:taxonomy-mock:/nonexistent:/sbin/nologin\n',
)
fs.writeFileSync(path.join(rootfs, 'etc/group'), 'root:x:0:\ntaxonomy-mock:x:10001:\n')
fs.writeFileSync(path.join(rootfs, 'etc/nsswitch.conf'), 'hosts: files dns\n')
fs.mkdirSync(path.join(rootfs, 'tmp'), { recursive: true })
fs.chmodSync(path.join(rootfs, 'tmp'), 0o1777)
