package dev.verbatim.bench.objects;

import java.util.Locale;

/**
 * How the list is walked (paper 003 §5), each element doing work {@code w} and the walk returning the sum
 * of the elements' values to the caller. The walk follows the links, so it moves from base to base with
 * the list (each remote link is one call to the next element's base, nested in the previous one's).
 *
 * <ul>
 *   <li>{@link #SERIAL}: each element does its work, then calls the next element; one thread of control.</li>
 *   <li>{@link #THREADED}: each element starts a thread for its work, calls the next element at once, then
 *       joins its thread: the work of all elements overlaps with the walk.</li>
 *   <li>{@link #HYBRID}: each element looks whether its next element is on another base ({@code isRemote}):
 *       only then does it start a thread for its work before calling on; for a local next element it does
 *       the work itself first, as in the serial walk.</li>
 * </ul>
 */
public enum Traversal {
    SERIAL,
    THREADED,
    HYBRID;

    /** The name in case keys: {@code serial}. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }
}
