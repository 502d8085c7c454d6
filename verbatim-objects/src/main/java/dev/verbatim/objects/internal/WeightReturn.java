package dev.verbatim.objects.internal;

import dev.verbatim.objects.Shared;

/**
 * A reference on its way home carrying {@code weight} and nothing else: what a holder sends to give its
 * weight back ({@link BaseService#release}) or to ask for more ({@link WeightService#grant}, weight 0). It
 * is encoded as a shared reference like any other, so the owner checks it as one.
 */
record WeightReturn(long owner, int id, long weight) implements Shared {
}
