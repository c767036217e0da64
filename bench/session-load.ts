// Run by bench/sessions.ts in its own process: the 16 sessions' requests, so their client work
// does not slow the admin client being measured. Prints the count of wrong answers as JSON.
const [url, sessionsArg, requestsArg] = process.argv.slice(2)
const sessions = Number(sessionsArg)
const requests = Number(requestsArg)
const plans = JSON.parse(process.env.PLANS!) as { expect: (number | null)[] }[]

const wrong = await Promise.all(
  Array.from({ length: sessions }, async (_, i) => {
    const expect = plans[i % plans.length]!.expect
    let misses = 0
    for (let n = 0; n < requests; n++) {
      let status: number | null
      try {
        const response = await fetch(url!, {
          headers: {
            authorization: 'Bearer taxonomy-mock-key',
            'x-taxonomy-mock-session': `s${i}`,
          },
        })
        await response.arrayBuffer()
        status = response.status
      } catch {
        status = null
      }
      if (status !== expect[n]) misses++
    }
    return misses
  }),
)
console.log(JSON.stringify({ wrong: wrong.reduce((sum, count) => sum + count, 0) }))
