/**
 * Default embedding table sizes for DLRM: the 26 categorical features of the Criteo
 * Kaggle display-advertising data set, as the seed's model_size.json lists per table.
 * Users pass their own model_size.json with --dataset-config (payloads/dlrm.ts).
 */
export const CRITEO_CARDINALITIES: readonly number[] = [
  1460, 583, 10131227, 2202608, 305, 24, 12517, 633, 3, 93145, 5683, 8351593, 3194, 27, 14992, 5461306, 10,
  5652, 2173, 4, 7046547, 18, 15, 286181, 105, 142572,
];
