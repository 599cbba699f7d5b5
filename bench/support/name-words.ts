/** Words the benches write into person names that the demo graph's generator does not. */

/**
 * Second surnames written after a person's (the benches' own; some are the demo graph's
 * surnames too): Spanish and Portuguese double surnames, married names added.
 */
export const SECOND_SURNAMES: readonly string[] = [
  'Santos',
  'García',
  'Pereira',
  'Ferreira',
  'Oliveira',
  'Martínez',
  'Alves',
  'Gómez',
  'Costa',
  'Ruiz',
];
