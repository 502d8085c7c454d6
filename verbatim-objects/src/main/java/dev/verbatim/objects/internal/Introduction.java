package dev.verbatim.objects.internal;

import dev.verbatim.objects.Shared;

import java.util.List;

/**
 * A base introducing itself over a connection it made ({@link BaseService#hello}): encoded as a shared
 * reference to object 0 of {@code base} with weight 0 and the base's addresses, so the receiver learns, as
 * the reference is read, which base is at the far end of that connection (docs/objects.md §7). Object id 0
 * is never handed out, so an introduction cannot be mistaken for a reference.
 */
record Introduction(long base, List<String> addresses) implements Shared {
}
