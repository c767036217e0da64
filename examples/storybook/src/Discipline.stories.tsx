// src/Discipline.stories.tsx: a component that calls the API; two of its stories show an error state.
import { useEffect, useState } from 'react'
import { createHandlers } from 'taxonomy-mock/msw'

function Discipline({ slug }: { slug: string }) {
  const [text, setText] = useState('loading')
  useEffect(() => {
    const auth = { headers: { Authorization: 'Bearer taxonomy-mock-key' } }
    void fetch(`/api/v2/disciplines/${slug}`, auth).then(async (response) =>
      setText(`${response.status} ${await response.text()}`),
    )
  }, [slug])
  return <pre id="result">{text}</pre>
}

export default { title: 'Discipline', component: Discipline }

export const Pharmacology = { args: { slug: 'pharmacology' } }

// A story's `parameters.msw` replaces the global handlers, so it brings the kit's, with a scenario.
export const Missing = {
  args: { slug: 'pharmacology' },
  parameters: {
    msw: createHandlers({
      seed: 42,
      size: 'small',
      scenario: { kind: 'not-found', slug: 'pharmacology' },
    }),
  },
}

export const Outage = {
  args: { slug: 'pharmacology' },
  parameters: { msw: createHandlers({ seed: 42, size: 'small', scenario: 'unavailable' }) },
}
