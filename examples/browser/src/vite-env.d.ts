// src/vite-env.d.ts: Vite's types for `import.meta.env`, as Vite's own templates have them.
/// <reference types="vite/client" />
