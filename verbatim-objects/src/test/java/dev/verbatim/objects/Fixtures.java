package dev.verbatim.objects;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Shared interfaces and classes the tests pass between bases (public: names on the wire resolve only to public interfaces). */
public final class Fixtures {
    private Fixtures() {}

    public interface Counter extends Shared {
        int add(int n);

        int value();
    }

    /** Holds one counter; relays a counter along a chain of registries. */
    public interface Registry extends Shared {
        void put(Counter c);

        Counter get();

        /** Stores {@code c}, then passes it to {@code next} (which passes it to {@code last}); returns what comes back. */
        Counter via(Counter c, Registry next, Registry last);

        int addToStored(int n);

        /** Releases the stored counter (its weight goes home). */
        void drop();

        /** Holds {@code c} for a moment: reads it, then releases it (its weight goes home); what it read. */
        int glance(Counter c);

        long storedWeight();

        /** Whether the stored counter is a proxy (not an object of this base). */
        boolean storedIsRemote();
    }

    /** A hop of a synchronized chain across bases. */
    public interface Hop extends Shared {
        /** Synchronized: records the thread, then hops to {@code next} (which hops to {@code last}); the hops made. */
        int hop(Hop next, Hop last);
    }

    /** Calls that bounce between two objects on two bases: A -> B -> A -> B ... */
    public interface Bouncer extends Shared {
        /** {@code n} more bounces through {@code other} (which bounces back through this); the bases' ids visited, in order. */
        String bounce(int n, Bouncer other);
    }

    public static class Ball implements Bouncer {
        private final String name;

        public Ball(String name) {
            this.name = name;
        }

        @Override
        public String bounce(int n, Bouncer other) {
            return n == 0 ? name : name + other.bounce(n - 1, this);
        }
    }

    /** A ball whose bounce holds its monitor: a chain coming back must re-enter it on the same thread. */
    public static class GuardedBall implements Bouncer {
        private final String name;
        public final List<Thread> threads = new CopyOnWriteArrayList<>();

        public GuardedBall(String name) {
            this.name = name;
        }

        @Override
        public synchronized String bounce(int n, Bouncer other) {
            threads.add(Thread.currentThread());
            return n == 0 ? name : name + other.bounce(n - 1, this);
        }
    }

    public interface Maker extends Shared {
        Counter make(int millis);

        int ping(int x);
    }

    public interface Nested extends Shared {
        void take(Holder h);
    }

    /** A value by copy holding a shared object: crosses with it as a reference. */
    public record Holder(Counter counter) {}

    public static class Cell implements Counter {
        private int v;

        public Cell() {}

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

    /** Constructed with another base's counter: its calls call that one. */
    public static class Doubler implements Counter {
        private final Counter inner;

        public Doubler(Counter inner) {
            this.inner = inner;
        }

        @Override
        public int add(int n) {
            return inner.add(2 * n);
        }

        @Override
        public int value() {
            return inner.value();
        }
    }

    /** Never allowed anywhere. */
    public static class Secret extends Cell {
        public static volatile boolean constructed;

        public Secret() {
            constructed = true;
        }
    }

    public static final class Cells {
        private Cells() {}

        public static int twice(int x) {
            return 2 * x;
        }

        public static Counter make(int v) {
            return new Cell(v);
        }
    }

    public static class Store implements Registry {
        public volatile Counter stored;

        public Store() {}

        @Override
        public void put(Counter c) {
            stored = c;
        }

        @Override
        public Counter get() {
            return stored;
        }

        @Override
        public Counter via(Counter c, Registry next, Registry last) {
            stored = c;
            return next == null ? c : next.via(c, last, null);
        }

        @Override
        public int addToStored(int n) {
            return stored.add(n);
        }

        @Override
        public void drop() {
            Base.release(stored);
            stored = null;
        }

        @Override
        public int glance(Counter c) {
            int v = c.value();
            Base.release(c);
            return v;
        }

        @Override
        public long storedWeight() {
            return Base.heldWeight(stored);
        }

        @Override
        public boolean storedIsRemote() {
            return Base.isRemote(stored);
        }
    }

    public static class Guard implements Hop {
        public final List<Thread> threads = new CopyOnWriteArrayList<>();

        public Guard() {}

        @Override
        public synchronized int hop(Hop next, Hop last) {
            threads.add(Thread.currentThread());
            return next == null ? 1 : 1 + next.hop(last, null);
        }
    }

    /** An order whose customer is a shared object: a record passed by copy holding references (issue 15 §1). */
    public record Order(String id, Counter customer, Counter again) implements OrderView {}

    /** Shared objects in a list, an array and a map's values, inside a record. */
    public record Team(String name, List<Counter> members, Counter[] array, java.util.Map<String, Counter> byName) {}

    /** An order read in place (an accessor view): its customer accessor returns the reference. */
    public interface OrderView {
        String id();

        Counter customer();

        Counter again();
    }

    /** Takes and gives values by copy that hold shared objects. */
    public interface Desk extends Shared {
        void place(Order o);

        Order order();

        Order echo(Order o);

        /** An order of this base's own counter (created once): a result holding a reference. */
        Order mine();

        int addToCustomer(int n);

        /** Whether the stored order's customer and again are one object (one proxy), and remote. */
        String describeStored();

        Team echoTeam(Team t);

        /** Identities within {@code t} as it arrived: "members0==members2 array0==members0 map_b==members1 remote". */
        String identities(Team t);

        /** Stores {@code o}, places it at {@code next}, returns what {@code next} then holds. */
        Order relay(Order o, Desk next);

        /** Forgets the stored order (its references become unreachable). */
        void drop();

        /** Reads an order in place: "same" if customer and again are one proxy, and what adding {@code n} to it gives. */
        String viewCustomer(OrderView v, int n);

        /** Stores {@code o} (and ignores {@code t}). */
        void placeBoth(Order o, Team t);
    }

    public static class DeskImpl implements Desk {
        public volatile Order stored;
        private final Cell own = new Cell(100);

        public DeskImpl() {}

        @Override public void place(Order o) { stored = o; }

        @Override public Order order() { return stored; }

        /** The last order {@link #echo} saw, as it arrived. */
        public volatile Order echoed;

        @Override public Order echo(Order o) {
            echoed = o;
            return o;
        }

        @Override public Order mine() { return new Order("mine", own, own); }

        @Override public int addToCustomer(int n) { return stored.customer().add(n); }

        @Override public String describeStored() {
            Order o = stored;
            return (o.customer() == o.again() ? "same" : "different") + (Base.isRemote(o.customer()) ? " remote" : " local");
        }

        @Override public Team echoTeam(Team t) { return t; }

        @Override public String identities(Team t) {
            List<Counter> m = t.members();
            return "members0==members2 " + (m.get(0) == m.get(2)) + " array0==members0 " + (t.array()[0] == m.get(0))
                    + " map_b==members1 " + (t.byName().get("b") == m.get(1)) + " remote " + Base.isRemote(m.get(0));
        }

        @Override public Order relay(Order o, Desk next) {
            stored = o;
            next.place(o);
            return next.order();
        }

        @Override public void drop() { stored = null; }

        @Override public void placeBoth(Order o, Team t) { stored = o; }

        @Override public String viewCustomer(OrderView v, int n) {
            return (v.customer() == v.again() ? "same " : "different ") + v.customer().add(n) + " " + v.id();
        }
    }

    public static class NestedTaker implements Nested {
        public volatile Holder last;

        public NestedTaker() {}

        @Override
        public void take(Holder h) {
            last = h;
        }
    }

    /** A counter that doubles what it adds to another, with a no-argument constructor: a copy of it can be materialised. */
    public static class Pointer implements Counter {
        private Counter inner;

        public Pointer() {}

        public Pointer(Counter inner) {
            this.inner = inner;
        }

        @Override
        public int add(int n) {
            return inner.add(2 * n);
        }

        @Override
        public int value() {
            return inner.value();
        }
    }

    /** A counter constructed from a holder: it doubles what it adds into the holder's counter. */
    public static class HolderBox extends Doubler {
        public HolderBox(Holder h) {
            super(h.counter());
        }
    }
}
