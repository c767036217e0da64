import { isSessionId } from '../../http/sessions.js'

const SESSION_WRITE = /^\/__admin\/sessions\/([^/?]+)(?:\/(scenario|data|requests))?(?:\?|$)/

/** The session an admin write is for, when its id is one (a hostile URL is answered locally). */
export function sessionWritten(url: string): string | undefined {
  const encoded = SESSION_WRITE.exec(pathOf(url))?.[1]
  if (encoded === undefined) return undefined
  try {
    const id = decodeURIComponent(encoded)
    return isSessionId(id) ? id : undefined
  } catch {
    return undefined
  }
}

/** What of its session an admin write changes: `undefined` for the session itself. */
export function resourceWritten(url: string): 'scenario' | 'data' | 'requests' | undefined {
  return SESSION_WRITE.exec(pathOf(url))?.[2] as 'scenario' | 'data' | 'requests' | undefined
}

function pathOf(url: string): string {
  return url.startsWith('/') ? url : new URL(url).pathname
}
