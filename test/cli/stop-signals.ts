// Run as its own process by stop-signals.test.ts: the real createProcessIo's onStop, with
// signals sent to this process. Prints what the handler saw as one JSON line, then exits 0.
import { createProcessIo } from '../../src/cli/process-io.js'

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Calls `send`, then resolves once `signal` has reached this process `count` times. */
function delivered(signal: NodeJS.Signals, count: number, send: () => void): Promise<void> {
  return new Promise((resolve) => {
    // A signal listener does not keep the process alive: this does, until the signals came.
    const alive = setInterval(() => {}, 1_000)
    let received = 0
    const listener = () => {
      if (++received < count) return
      process.off(signal, listener)
      clearInterval(alive)
      resolve()
    }
    process.on(signal, listener)
    send()
  })
}
const seen: number[] = []
const io = createProcessIo()

switch (process.argv[2]) {
  case 'echo': {
    // The launcher's echo comes after the first signal was handled; a different signal later is a second stop.
    const stop = io.onStop((signals) => {
      seen.push(signals)
      if (signals === 1) process.kill(process.pid, 'SIGTERM')
    })
    // Each next step once the signals before it were handled (a listener added after onStop's runs
    // after it), whenever a busy machine gets to them: two SIGTERMs (the first and its echo), then SIGINT.
    await delivered('SIGTERM', 2, () => process.kill(process.pid, 'SIGTERM'))
    await delivered('SIGINT', 1, () => process.kill(process.pid, 'SIGINT'))
    stop()
    break
  }
  case 'after-stop': {
    // Stopped listening on the first signal (the server closed at once); its echo arrives after.
    const stop = io.onStop((signals) => {
      seen.push(signals)
      stop()
      process.kill(process.pid, 'SIGTERM')
    })
    process.kill(process.pid, 'SIGTERM')
    await pause(200)
    break
  }
  case 'long-after-stop': {
    // Past the echo window the signal does what it does by default again.
    io.onStop(() => {})()
    await pause(1_000)
    process.kill(process.pid, 'SIGTERM')
    await pause(1_000)
    break
  }
}
io.stdout(JSON.stringify(seen))
