// Preloaded (--require) by stop-signals-early.test.ts: the CLI's writes to a partial file (a file
// written beside its target, then renamed into place) are held for good, so that a test can stop
// the CLI in the midst of writing its output whatever its size and the machine's speed (a large
// export took seconds of CPU to be there). The file is opened for real: only its writes wait.
const fs = require('node:fs')

const createWriteStream = fs.createWriteStream
fs.createWriteStream = function (path, ...rest) {
  const stream = createWriteStream.call(this, path, ...rest)
  if (String(path).endsWith('.partial')) {
    // Neither ever calls back: the stream waits for the write, as for a slow disk, and a timer
    // keeps the process alive meanwhile, as the disk's pending write would.
    const hold = () => void setInterval(() => {}, 2 ** 30)
    stream._write = hold
    stream._writev = hold
  }
  return stream
}
