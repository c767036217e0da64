/**
 * The package's version, as package.json says (a test holds the two equal), for what the HTTP
 * layer writes itself: a HAR file's `creator`. A constant, not a read of package.json: this code
 * runs in browsers and workers too, which read no file, and every bundler keeps a constant.
 */
export const PACKAGE_VERSION = '0.1.0'
