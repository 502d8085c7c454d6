package dev.verbatim.objects.internal;

/** How a base's incarnation is printed in messages. */
final class BaseIds {
    private BaseIds() {}

    static String name(long incarnation) {
        return String.format("base-%016x", incarnation);
    }
}
