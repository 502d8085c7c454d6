package dev.verbatim.objects.internal;

/** Text from a peer echoed in an exception message, clipped. */
final class ExceptionsText {
    private ExceptionsText() {}

    static String clip(String s) {
        return s == null || s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }
}
