/** A run of characters a JSON string holds as they are: one loop over a class, which never backtracks. */
const PLAIN = /[^"\\\u0000-\u001f]*/y
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y

/**
 * Where the longest start of a JSON string at `at` ends: a `"` right after it ends the string;
 * `at` when no string starts there. Read run by run, not by one regular expression with a group
 * repeated per character, whose backtracking stack overflows past about 10 million of them.
 *
 * @example
 * endOfStringStart('"a\\n" x', 0) // 4: the closing quote
 */
export function endOfStringStart(text: string, at: number): number {
  if (text[at] !== '"') return at
  let end = at + 1
  for (;;) {
    PLAIN.lastIndex = end
    PLAIN.test(text)
    end = PLAIN.lastIndex
    ESCAPE.lastIndex = end
    if (!ESCAPE.test(text)) return end
    end = ESCAPE.lastIndex
  }
}
