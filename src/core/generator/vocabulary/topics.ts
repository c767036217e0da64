/**
 * Topic names are a subject of the discipline set in an aspect ("Models of Dark Matter"), and once a
 * discipline's plain combinations run out, also in a context ("… in East Asia"). `{s}` is the subject.
 */
/** Which fields an aspect suits: every field, the empirical ones, or the humanistic ones. */
export type AspectFit = 'any' | 'empirical' | 'humanistic'

/** The aspects; a domain's `style` decides which it uses (a social science uses all). */
export const ASPECTS: readonly (readonly [text: string, fit: AspectFit])[] = [
  ['{s}', 'any'], ['Models of {s}', 'any'], ['Theories of {s}', 'any'], ['History of {s}', 'any'],
  ['Ethics of {s}', 'any'], ['Foundations of {s}', 'any'], ['Recent Advances in {s}', 'any'],
  ['Case Studies in {s}', 'any'], ['Open Problems in {s}', 'any'], ['Classification of {s}', 'any'],
  ['Evolution of {s}', 'any'], ['Interdisciplinary Perspectives on {s}', 'any'], ['Teaching {s}', 'any'],
  ['Methods for {s}', 'any'], ['Public Understanding of {s}', 'any'], ['{s} and Society', 'any'],
  ['{s} and Technology', 'any'], ['Global Patterns of {s}', 'any'], ['Early Research on {s}', 'any'],
  ['Controversies over {s}', 'any'], ['Reviews of {s}', 'any'], ['Field Methods for {s}', 'any'],
  ['Long-Term Trends in {s}', 'any'], ['Comparative Perspectives on {s}', 'any'],
  ['Measurement of {s}', 'empirical'], ['Computational Approaches to {s}', 'empirical'],
  ['Statistical Analysis of {s}', 'empirical'], ['Experimental Studies of {s}', 'empirical'],
  ['Simulation of {s}', 'empirical'], ['Data-Driven Studies of {s}', 'empirical'],
  ['Policy Implications of {s}', 'empirical'], ['Mechanisms of {s}', 'empirical'],
  ['Variability in {s}', 'empirical'], ['Mathematical Models of {s}', 'empirical'],
  ['Risk and {s}', 'empirical'], ['Forecasting {s}', 'empirical'], ['Visualising {s}', 'empirical'],
  ['Standards for {s}', 'empirical'], ['Imaging {s}', 'empirical'], ['Scaling Laws of {s}', 'empirical'],
  ['Sources of Error in {s}', 'empirical'], ['Benchmarks for {s}', 'empirical'],
  ['Critical Approaches to {s}', 'humanistic'], ['Archival Sources on {s}', 'humanistic'],
  ['Regional Studies of {s}', 'humanistic'], ['Representations of {s}', 'humanistic'],
  ['Narratives of {s}', 'humanistic'], ['Gender and {s}', 'humanistic'], ['Memory and {s}', 'humanistic'],
  ['Readings of {s}', 'humanistic'], ['Debates on {s}', 'humanistic'], ['Rethinking {s}', 'humanistic'],
  ['Sources for {s}', 'humanistic'], ['Translations of {s}', 'humanistic'],
  ['Visual Culture of {s}', 'humanistic'], ['Patronage and {s}', 'humanistic'],
  ['Reception of {s}', 'humanistic'], ['Politics of {s}', 'humanistic'],
]

/** Contexts appended only after every plain aspect-subject pair of a discipline is used. */
export const CONTEXTS: readonly string[] = [
  'in Europe', 'in East Asia', 'in Sub-Saharan Africa', 'in Latin America', 'in South Asia',
  'in the Middle East', 'in North America', 'in Oceania', 'in Urban Settings', 'in Rural Communities',
  'at Small Scales', 'at Large Scales', 'under Uncertainty', 'in the Twentieth Century',
  'in the Nineteenth Century', 'in the Postwar Era', 'in Low-Income Settings', 'in Coastal Regions',
  'in Arid Environments', 'across Cultures', 'over Time', 'in Historical Perspective', 'in Practice',
  'in Theory', 'for Policy Makers', 'for Practitioners', 'in the Digital Age', 'in Island Nations',
  'in Mountain Regions', 'in Polar Regions', 'in Developing Economies', 'in Post-Industrial Cities',
  'in Cross-National Comparison', 'in Longitudinal Data', 'in Open Data', 'at Global Scale',
  'in Emerging Markets', 'in the Arctic', 'in the Tropics', 'in Small States',
]
