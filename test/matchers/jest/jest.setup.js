// One import adds the matchers to Jest's global `expect`.
import 'taxonomy-mock/matchers/jest'
