// The few parts of Storybook's API the addon uses. Storybook is an optional peer, not a dependency
// of this package: a user's project brings the real one, and the Storybook tests build with it.

declare module 'storybook/preview-api' {
  export const addons: {
    getChannel(): { emit(event: string, ...args: unknown[]): void }
  }
}

declare module 'storybook/manager-api' {
  interface Channel {
    on(event: string, listener: (...args: any[]) => void): void
    emit(event: string, ...args: unknown[]): void
  }
  export interface API extends Channel {
    getUrlState(): { storyId?: string }
  }
  export const addons: {
    register(id: string, callback: (api: API) => void): void
    add(
      id: string,
      addon: {
        type: string
        title: string
        render(props: { active?: boolean }): unknown
      },
    ): void
  }
  export const types: { readonly PANEL: string }
}

declare module 'storybook/internal/core-events' {
  export const GLOBALS_UPDATED: string
  export const FORCE_REMOUNT: string
  export const STORY_CHANGED: string
  export const SET_GLOBALS: string
}
