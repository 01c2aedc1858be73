import { randomInt } from 'node:crypto';

// Short, plain, lowercase words: every combination is a valid VM name (SPEC §3).
export const ADJECTIVES: readonly string[] = `amber bold brave bright calm clever cosy crisp eager
  fancy gentle glad golden happy humble jolly keen kind lively lucky mellow merry misty nimble
  proud quick quiet rapid shiny silent sleepy snowy sunny swift tidy tiny vivid warm wise witty`
  .trim()
  .split(/\s+/);

export const NOUNS: readonly string[] = `badger beacon brook canyon cedar comet coral crane delta
  dune falcon fern fjord forest harbor heron island lagoon lantern maple meadow meteor moose
  nebula otter panda pebble pine planet quartz raven reef river robin sparrow summit thistle
  tundra valley willow`
  .trim()
  .split(/\s+/);

/** A random `adjective-noun` name such as `brave-otter` (1600 combinations). */
export function randomVmName(): string {
  return `${ADJECTIVES[randomInt(ADJECTIVES.length)]!}-${NOUNS[randomInt(NOUNS.length)]!}`;
}
