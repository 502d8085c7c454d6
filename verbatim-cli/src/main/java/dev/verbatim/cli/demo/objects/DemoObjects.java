package dev.verbatim.cli.demo.objects;

import dev.verbatim.objects.Base;
import dev.verbatim.objects.Shared;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The shared objects of {@code ./verbatim demo --objects} (public: names on the wire resolve only to public
 * shared interfaces): list elements, counters, each base's station (what the demo asks a base to do
 * there) and the guards of the synchronized chain.
 */
public final class DemoObjects {
    private DemoObjects() {}

    /** A list element: built on its base by remote construction. */
    public interface Elem extends Shared {
        long value();

        /** This element's value plus the rest of the list's, following the links from base to base. */
        long sum();
    }

    public interface Counter extends Shared {
        int add(int n);

        int value();
    }

    /** What the demo asks a base to do there. */
    public interface Station extends Shared {
        /** Keeps {@code c} (a reference forwarded to this base). */
        void keep(Counter c);

        /** Calls the kept counter from this base. */
        int addToKept(int n);

        /** Returns {@code c}, through {@code next} when there is one (a round trip through the other bases). */
        Counter relay(Counter c, Station next);

        /** Keeps another base's station, to call it after that base died. */
        void keepStation(Station s);

        /** Calls the kept station: {@code "ok"}, or the exception this base gets. */
        String callKeptStation();

        /** Drops every reference this base keeps (released: their weight goes home at once). */
        void dropAll();

        /** Runs the garbage collector here (proxies nobody references send their weight home). */
        void gc();

        /** How many of this base's objects other bases may hold. */
        int exported();

        /** Messages this base received so far. */
        long received();
    }

    /** A hop of the synchronized chain. */
    public interface Hop extends Shared {
        /** Synchronized: records the thread, then hops to {@code next} (which hops to {@code last}); the hops made. */
        int hop(Hop next, Hop last);
    }

    public static final class Element implements Elem {
        private final long value;
        private final Elem next;

        public Element(long value, Elem next) {
            this.value = value;
            this.next = next;
        }

        @Override
        public long value() {
            return value;
        }

        @Override
        public long sum() {
            return next == null ? value : value + next.sum();
        }
    }

    /** A counter; copyable by {@code cloneOn} (the wire format copies its field; it needs a no-argument constructor). */
    public static final class Cell implements Counter {
        private int v;

        Cell() {}

        public Cell(int v) {
            this.v = v;
        }

        @Override
        public synchronized int add(int n) {
            return v += n;
        }

        @Override
        public synchronized int value() {
            return v;
        }
    }

    /** A base's station; {@code base} is the base it is bound on. */
    public static final class StationImpl implements Station {
        private final Base base;
        private volatile Counter kept;
        private volatile Station keptStation;

        public StationImpl(Base base) {
            this.base = base;
        }

        @Override
        public void keep(Counter c) {
            kept = c;
        }

        @Override
        public int addToKept(int n) {
            return kept.add(n);
        }

        @Override
        public Counter relay(Counter c, Station next) {
            return next == null ? c : next.relay(c, null);
        }

        @Override
        public void keepStation(Station s) {
            keptStation = s;
        }

        @Override
        public String callKeptStation() {
            try {
                keptStation.received();
                return "ok";
            } catch (RuntimeException e) {
                return e.toString();
            }
        }

        @Override
        public void dropAll() {
            for (Object o : new Object[] {kept, keptStation}) {
                if (o != null && Base.isRemote(o)) {
                    try {
                        Base.release(o);
                    } catch (RuntimeException e) {
                        // released already
                    }
                }
            }
            kept = null;
            keptStation = null;
        }

        @Override
        public void gc() {
            System.gc();
        }

        @Override
        public int exported() {
            return base.exportedObjects();
        }

        @Override
        public long received() {
            return base.messagesReceived();
        }
    }

    public static final class Guard implements Hop {
        public final List<Thread> threads = new CopyOnWriteArrayList<>();

        public Guard() {}

        @Override
        public synchronized int hop(Hop next, Hop last) {
            threads.add(Thread.currentThread());
            return next == null ? 1 : 1 + next.hop(last, null);
        }
    }
}
