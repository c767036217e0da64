// Preloaded (--require) by written-file-close.test.ts: closing a partial file (written beside its
// target, then renamed into place) fails with EIO after the file is closed for real, as a network
// file system reports a write it could not make only when the file is closed.
const fs = require('node:fs')

const open = fs.open
const close = fs.close
const partials = new Set()
fs.open = function (path, ...rest) {
  const callback = rest.pop()
  return open.call(this, path, ...rest, (error, fd) => {
    if (error === null && String(path).endsWith('.partial')) partials.add(fd)
    callback(error, fd)
  })
}
fs.close = function (fd, callback) {
  if (!partials.delete(fd)) return close.call(this, fd, callback)
  return close.call(this, fd, () => {
    const error = Object.assign(new Error('EIO: i/o error, close'), {
      code: 'EIO',
      errno: -5,
      syscall: 'close',
    })
    callback(error)
  })
}
