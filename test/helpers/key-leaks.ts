/**
 * The first stretch of `key` (12 characters or more of it, or of its base64) that `text` shows,
 * read raw, JSON-unescaped, percent-decoded (twice) and XML-unescaped; `undefined` when none.
 */
export function findKeyLeak(text: string, key: string): string | undefined {
  const base64 = btoa(key)
  const needles = [...windows(key), ...windows(base64.slice(0, base64.length - 4))]
  const views = [text, unescapeJson(text), decodePercent(decodePercent(text)), unescapeXml(text)]
  for (const view of views) {
    const found = needles.find((needle) => view.includes(needle))
    if (found) return found
  }
  return undefined
}

function windows(text: string, size = 12): string[] {
  return Array.from({ length: Math.max(0, text.length - size + 1) }, (_, i) =>
    text.slice(i, i + size),
  )
}

function unescapeJson(text: string): string {
  return text
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/\\(["\\/])/g, '$1')
}

function decodePercent(text: string): string {
  return text.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) =>
    String.fromCharCode(parseInt(hex, 16)),
  )
}

function unescapeXml(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
}
