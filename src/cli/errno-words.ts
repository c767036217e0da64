/**
 * The causes that a file's read line and its write line both name, in words, by errno code: a
 * code names no cause to a person. `undefined` for a code each line says its own way, or none.
 */
export function errnoWords(code: string | undefined): string | undefined {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    case 'ELOOP':
      return 'its symbolic links make a loop'
    case 'ENOTDIR':
      return 'a part of the path is a file, not a folder'
    case 'ENAMETOOLONG':
      return 'its name is too long for the file system'
    // /dev/tty in a process with no terminal (CI, a service), or a socket's path.
    case 'ENXIO':
      return 'no device to open behind it (a terminal when the process has none, or a socket)'
    default:
      return undefined
  }
}
