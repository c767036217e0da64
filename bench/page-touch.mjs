// What a page of memory costs the first time a process touches it, on this machine now: a fresh
// process writes one byte to each page of 256 MB and prints its CPU time per page, in µs. On a
// virtual machine a page the guest has not used since it booted can cost several times one it has
// (the host backs it then): a memory-heavy command's CPU time moves with it, a light one's does not.
import { execFileSync } from 'node:child_process'

const MB = 256
/** The system's page size: 4 KB on x86-64, 16 or 64 KB on some ARM hosts. */
const PAGE = Number(execFileSync('getconf', ['PAGESIZE'], { encoding: 'utf8' })) || 4096
const before = process.cpuUsage()
const memory = Buffer.allocUnsafeSlow(MB << 20)
for (let at = 0; at < memory.length; at += PAGE) memory[at] = 1
const { user, system } = process.cpuUsage(before)
console.log(((user + system) / (memory.length / PAGE)).toFixed(2))
