package dev.verbatim.objects;

import dev.verbatim.objects.internal.ObjectSpace;

import java.util.List;
import java.util.Objects;

/**
 * A process's home for shared objects (paper 003's base), listening at {@code shm:} and/or
 * {@code tcp://} addresses. A program gets a first reference to another base's object by name
 * ({@link #lookup}) or by creating one there ({@link RemoteBase#create}); from then on, objects of classes
 * implementing {@link Shared} interfaces cross by reference whenever they are passed or returned, and
 * everything else by copy.
 *
 * <pre>{@code
 * Base a = Base.listen("shm:a");
 * Base b = Base.listen("shm:b");
 * b.allow(Cell.class);                                  // b lets others construct Cells on it
 * RemoteBase atB = a.base(b.addresses().getFirst());    // the paper's getBase
 * Counter c = atB.create(Counter.class, Cell.class, 5); // constructed on b, a reference here
 * c.add(1);                                             // a call to b
 * }</pre>
 *
 * <p>Invariants (docs/objects.md): one proxy per object per base, so two references to one object are
 * {@code ==} and a reference that comes home is the original object; passing a reference on to a third
 * base sends nothing to its owner; an object is kept by its owner while any other base may hold it
 * (weighted reference counting) and forgotten when all weight is back, or when a census after a death
 * finds only dead bases could hold it; a call chain that comes back to a
 * base where a thread waits in it runs on that thread, re-entering its monitors. Thread-safe.
 */
public final class Base implements AutoCloseable {
    private final ObjectSpace space;
    private final BaseId id;

    private Base(ObjectSpace space) {
        this.space = space;
        this.id = new BaseId(space.id());
    }

    /** A base listening at {@code addresses} with the default options. */
    public static Base listen(String... addresses) {
        return listen(BaseOptions.DEFAULT, addresses);
    }

    /** A base listening at {@code addresses} (at least one: holders of its objects call it there). */
    public static Base listen(BaseOptions options, String... addresses) {
        return new Base(ObjectSpace.listen(Objects.requireNonNull(options), addresses));
    }

    /** This base's id: its incarnation. */
    public BaseId id() {
        return id;
    }

    /** The addresses this base listens at (with real ports). */
    public List<String> addresses() {
        return space.addresses();
    }

    /**
     * Lets other bases construct objects of {@code classes} here, call their public static methods and
     * copy objects into them ({@link #cloneOn}). Nothing else is ever constructed on request: a class
     * name in a message is looked up among these, never loaded.
     */
    public void allow(Class<?>... classes) {
        for (Class<?> c : classes) {
            space.allow(c);
        }
    }

    /**
     * The base listening at {@code address} (the paper's {@code getBase}): connects and learns its id.
     *
     * @throws dev.verbatim.rpc.RemoteException {@code CONNECTION} if nothing answers there
     */
    public RemoteBase base(String address) {
        return new RemoteBase(space.base(address));
    }

    /** Binds {@code object} under {@code name}, for {@link #lookup} by other bases (a first reference). */
    public void bind(String name, Shared object) {
        space.bind(name, object);
    }

    /** The object bound under {@code name} at the base at {@code address}, as {@code type}; null if none. */
    public <T> T lookup(String address, String name, Class<T> type) {
        return base(address).named(name, type);
    }

    /** Whether {@code o} is a reference to another base's object (a proxy), not an object of this process's. */
    public static boolean isRemote(Object o) {
        return ObjectSpace.isRemote(o);
    }

    /** The id of the base {@code o} lives on: this base's for one of its own objects. */
    public BaseId home(Object o) {
        return new BaseId(space.home(o));
    }

    /**
     * A copy of {@code o} on {@code target}: a reference to the copy. The copy is made from the object's
     * state passed by copy (its fields, as the wire format copies a class), so its class must be allowed
     * on {@code target} (and have a no-argument constructor); shared objects in its fields cross as
     * references, with weight and identity, as in a call. For a reference, the object's own base makes the
     * copy.
     */
    @SuppressWarnings("unchecked")
    public <T extends Shared> T cloneOn(T o, RemoteBase target) {
        return (T) space.cloneOn(o, target.id().incarnation(), target.addresses());
    }

    /** A copy of {@code o} on this base. */
    @SuppressWarnings("unchecked")
    public <T extends Shared> T cloneHere(T o) {
        return (T) space.cloneOn(o, id.incarnation(), addresses());
    }

    /**
     * Releases a reference now instead of when the garbage collector finds its proxy unreachable: its
     * weight goes home before this returns, and later calls through the proxy fail.
     *
     * @throws IllegalArgumentException if {@code proxy} is not a reference to another base's object
     */
    public static void release(Object proxy) {
        ObjectSpace s = ObjectSpace.holderOf(proxy);
        if (s == null) {
            throw new IllegalArgumentException("not a reference to another base's object: " + proxy);
        }
        s.release(proxy);
    }

    /**
     * How many of this base's objects other bases may hold: what is exported. What only dead bases held goes
     * at the census after their death (docs/objects.md §7); distributed cycles stay, and are counted here.
     */
    public int exportedObjects() {
        return space.ownedCount();
    }

    /** How many censuses this base completed after other bases died (docs/objects.md §7). */
    public long censusesCompleted() {
        return space.censusCounts()[0];
    }

    /** How many of this base's objects those censuses freed: held, as far as the census could tell, only by dead bases. */
    public long freedByCensus() {
        return space.censusCounts()[1];
    }

    /**
     * How many objects this base keeps weight accounts of (docs/objects.md §7): the other bases' objects it holds
     * and its own objects others may hold, now. It returns to where it was when what was held is dropped.
     */
    public int ledgerAccounts() {
        return space.ledgerAccounts();
    }

    /** How many other bases' objects this base holds proxies of. */
    public int heldObjects() {
        return space.heldCount();
    }

    /** The weight outstanding of {@code o}, one of this base's objects (0 if no other base holds it). */
    public long outstandingWeight(Object o) {
        return space.outstanding(o);
    }

    /** The weight this process holds of another base's object through {@code proxy} (0 for anything else). */
    public static long heldWeight(Object proxy) {
        return ObjectSpace.weightHeld(proxy);
    }

    /** Messages this base received over its connections open now (to count what an operation costs). */
    public long messagesReceived() {
        return space.messagesReceived();
    }

    /** Stops listening and closes every connection: holders of this base's objects get {@code GONE} from now on. */
    @Override
    public void close() {
        space.close();
    }

    @Override
    public String toString() {
        return id + " at " + addresses();
    }
}
