package dev.verbatim.bench.objects;

import dev.verbatim.objects.Base;
import dev.verbatim.objects.Shared;

/**
 * The shared objects of the objects suite (public: a name on the wire resolves only to a public shared
 * interface): the {@link Probe} of the null call and of the forwarded reference, and the list's
 * {@link Elem}ents with their three walks ({@link Traversal}). Plain RPC's twin of the probe is
 * {@link NullService}; Java RMI's twins are in {@link RmiFixtures}.
 */
public final class SharedFixtures {
    private SharedFixtures() {}

    /** The object of {@code call-null} (a method that does nothing) and of {@code forward-ref} (one that stores a reference). */
    public interface Probe extends Shared {
        void nullCall();

        /** Stores {@code p} (a reference to another base's probe): the third base of {@code forward-ref}. */
        void put(Probe p);

        /** Stores {@code b}: {@code forward-ref}'s {@code bytes}, the reference's bytes passed as a plain argument. */
        void putBytes(byte[] b);
    }

    /** The same null call through a plain RPC proxy ({@code rpc}). */
    public interface NullService {
        void nullCall();
    }

    /** One probe per base; {@link #stored} is what {@code put} got last. */
    public static final class ProbeImpl implements Probe, NullService {
        public volatile Probe stored;
        /** What {@link #putBytes} got last. */
        public volatile byte[] bytes;

        public ProbeImpl() {}

        @Override
        public void nullCall() {
        }

        @Override
        public void put(Probe p) {
            stored = p;
        }

        @Override
        public void putBytes(byte[] b) {
            bytes = b;
        }
    }

    /**
     * An element of the distributed list: its value, then the sum of the values from here to the end,
     * walked as each method's {@link Traversal} says, each element spinning {@code w} ns of work.
     */
    public interface Elem extends Shared {
        long serial(long w);

        long threaded(long w);

        long hybrid(long w);
    }

    /** An element: constructed on its base by the base that builds the list ({@code RemoteBase.create}). */
    public static final class Element implements Elem {
        private final long value;
        private final Elem next;

        public Element(long value, Elem next) {
            this.value = value;
            this.next = next;
        }

        @Override
        public long serial(long w) {
            Work.spin(w);
            return next == null ? value : value + next.serial(w);
        }

        @Override
        public long threaded(long w) {
            Thread t = Work.start(w);
            long rest = next == null ? 0 : next.threaded(w);
            Work.join(t);
            return value + rest;
        }

        @Override
        public long hybrid(long w) {
            if (next == null || !Base.isRemote(next)) {
                Work.spin(w);
                return next == null ? value : value + next.hybrid(w);
            }
            Thread t = Work.start(w);
            long rest = next.hybrid(w);
            Work.join(t);
            return value + rest;
        }
    }

    /** The work of an element: a spin of {@code w} ns on this thread or on a thread of its own. */
    static final class Work {
        private Work() {}

        /** Spins {@code nanos} ns (nothing for 0). */
        static void spin(long nanos) {
            if (nanos <= 0) {
                return;
            }
            long t0 = System.nanoTime();
            while (System.nanoTime() - t0 < nanos) {
                Thread.onSpinWait();
            }
        }

        /** A new (virtual) thread spinning {@code nanos} ns: paper 003's thread per element. */
        static Thread start(long nanos) {
            return Thread.ofVirtual().start(() -> spin(nanos));
        }

        static void join(Thread t) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while an element's work ran", e);
            }
        }
    }
}
