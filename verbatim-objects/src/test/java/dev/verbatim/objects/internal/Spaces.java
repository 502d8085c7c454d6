package dev.verbatim.objects.internal;

import dev.verbatim.objects.BaseOptions;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** What the tests of this package that open an object space of their own, and read encoded references, share. */
final class Spaces {
    private Spaces() {}

    /** An object space with the default options listening on {@code shm:NAME-PID} (a name per test and process). */
    static ObjectSpace shm(String name) {
        return ObjectSpace.listen(BaseOptions.DEFAULT, "shm:" + name + "-" + ProcessHandle.current().pid());
    }

    /** The flags word of an encoded reference ({@link ReferenceDescriptor#FLAGS}). */
    static int flags(byte[] reference) {
        return MemorySegment.ofArray(reference).get(ValueLayout.JAVA_INT_UNALIGNED, ReferenceDescriptor.FLAGS);
    }
}
