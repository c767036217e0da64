// A story whose component calls the API; one story overrides the handlers to show a missing slug.
import { useEffect, useState } from 'react'
import { hideSlug } from 'taxonomy-mock/msw'

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

export const Missing = {
  args: { slug: 'pharmacology' },
  parameters: { msw: hideSlug('pharmacology') },
}
