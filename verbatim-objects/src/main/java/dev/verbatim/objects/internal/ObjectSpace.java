package dev.verbatim.objects.internal;

import dev.verbatim.objects.BaseOptions;
import dev.verbatim.objects.Shared;
import dev.verbatim.rpc.ExportOptions;
import dev.verbatim.rpc.Node;
import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.RemoteException.Reason;
import dev.verbatim.rpc.internal.Endpoint;
import dev.verbatim.rpc.internal.NodeAccess;
import dev.verbatim.rpc.internal.NodeExtension;

import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One base's object space (docs/objects.md): its incarnation, the objects it owns that others hold
 * ({@link OwnedObjects}), the proxies it holds of others' ({@link HeldObjects}), the bases it talks to
 * ({@link Peers}), the classes it allows ({@link Construction}), and, as the RPC node's
 * {@link NodeExtension}, how a shared reference is written and read.
 *
 * <p>Writing a reference: one of this base's objects gets a fresh grant of weight; a proxy of another
 * base's object gives half of what it holds (to the object's owner, possibly nothing); a proxy left with
 * too little to split asks the owner for another grant first ({@link HoldWeights}, which also takes in and sends home
 * what this base's holds receive and give back). Reading one: this base's own object comes
 * home and its weight is credited back; another base's arrives as the one proxy this base has of it (one in a
 * message dropped unread makes none: {@link #dropped}). Every
 * weight that moves is entered in the {@link Ledger} with the base it went to or came from, under the
 * ledger's monitor together with the change of the hold ({@code owned}'s monitor first for this base's own
 * objects), for the census after a base dies ({@link Census}).
 *
 * <p>Thread-safe.
 */
public final class ObjectSpace implements NodeExtension {
    private static final SecureRandom IDS = new SecureRandom();

    private final long id;
    private final BaseOptions options;
    private final ClassLoader loader;
    private final OwnedObjects owned = new OwnedObjects();
    private final HeldObjects held = new HeldObjects(this);
    private final Peers peers = new Peers(this);
    private final Construction construction = new Construction();
    private final Ledger ledger = new Ledger();
    private final Census census = new Census(this);
    private final HoldWeights weights = new HoldWeights(this);
    private final Map<String, Object> names = new ConcurrentHashMap<>();
    private volatile Node node;
    private volatile List<String> addresses = List.of();

    private ObjectSpace(BaseOptions options, ClassLoader loader) {
        long i;
        do {
            i = IDS.nextLong();
        } while (i == 0);
        this.id = i;
        this.options = options;
        this.loader = loader;
    }

    /** A base listening at {@code addresses}: its node exports the base service. */
    public static ObjectSpace listen(BaseOptions options, String... addresses) {
        if (addresses.length == 0) {
            throw new IllegalArgumentException("a base listens at one address at least: its holders call it there");
        }
        ClassLoader l = Thread.currentThread().getContextClassLoader();
        ObjectSpace s = new ObjectSpace(options, l != null ? l : ObjectSpace.class.getClassLoader());
        Node n = NodeAccess.nodes().listen(options.connection(), s, addresses);
        s.node = n;
        s.addresses = n.addresses();
        // its failures are the object layer's own (a class not allowed, a constructor that threw): told in full
        BaseServer server = new BaseServer(s);
        n.export(BaseService.NAME, BaseService.class, server, ExportOptions.VIRTUAL_THREADS.withErrorDetails(true));
        n.export(WeightService.NAME, WeightService.class, server, ExportOptions.INLINE.withErrorDetails(true)); // (§3)
        return s;
    }

    public long id() {
        return id;
    }

    public List<String> addresses() {
        return addresses;
    }

    public BaseOptions options() {
        return options;
    }

    Node node() {
        return node;
    }

    Peers peers() {
        return peers;
    }

    ClassLoader loader() {
        return loader;
    }

    Construction construction() {
        return construction;
    }

    Census census() {
        return census;
    }

    Ledger ledger() {
        return ledger;
    }

    OwnedObjects owned() {
        return owned;
    }

    HoldWeights weights() {
        return weights;
    }

    Object named(String name) {
        return names.get(name);
    }

    // ------------------------------------------------------------------ the node's extension

    @Override
    public boolean shares(Object value) {
        return value instanceof Shared;
    }

    @Override
    public byte[] encode(Object value, Class<?> declared, Endpoint over) {
        Peers.Peer to = peers.at(over);
        if (over != null && !over.isOpen()) { // (after the peer is looked up: a closed connection forgets its peer)
            throw new RemoteException(Reason.NOT_SENT, over.description() + " is closed: no reference is written to it");
        }
        return encode(value, to == null ? 0 : to.incarnation, declared, to);
    }

    /**
     * Whether the peer's answer to a call carrying {@code payload} tells this base something: the reference names its
     * owner's addresses ({@link #answered}).
     */
    @Override
    public boolean wantsAnswer(MemorySegment payload) {
        return ReferenceDescriptor.namesAddresses(payload);
    }

    /**
     * The base at the far end of {@code over} answered a call that carried {@code payload}, a reference naming its
     * owner's addresses: it read them, and knows them from now on (it never forgets a base), so references to that
     * owner's objects go there without them ({@link ReferenceDescriptor#KNOWN}). Only an answer says so: a call's
     * arguments may be read after a later call's (on another thread), never after its own answer.
     */
    @Override
    public void answered(MemorySegment payload, Endpoint over) {
        long owner = ReferenceDescriptor.owner(payload);
        if (owner != 0 && owner != id) {
            peers.told(over, owner);
        }
    }

    /** The payload of a reference to {@code value} sent to base {@code peer} (0: not known), its weight counted. */
    byte[] encode(Object value, long peer) {
        return encode(value, peer, null);
    }

    /** As {@link #encode(Object, long, Class, Peers.Peer)}, to the base {@code peer} names. */
    byte[] encode(Object value, long peer, Class<?> declared) {
        return encode(value, peer, declared, peers.byId(peer));
    }

    /**
     * The payload of a reference to {@code value} sent to base {@code peer} (0: not known; {@code to}: that base, or
     * null), its weight counted, read there as {@code declared} (null: no type; else a reference to an object offering
     * exactly that interface travels {@link ReferenceDescriptor#DECLARED}, without the interface's name). Another
     * base's object goes to a base that knows its owner's addresses ({@link Peers#wasTold}, or the owner itself)
     * without them ({@link ReferenceDescriptor#KNOWN}).
     */
    private byte[] encode(Object value, long peer, Class<?> declared, Peers.Peer to) {
        if (value instanceof WeightReturn r) {
            return ReferenceDescriptor.encode(Reference.home(r.owner(), r.id(), r.weight()));
        }
        if (value instanceof Introduction i) {
            return ReferenceDescriptor.encode(new Reference(i.base(), 0, 0, i.addresses(), List.of()));
        }
        if (peer == 0) {
            throw new RemoteException(Reason.ARGUMENT, "a shared object is not sent over a connection whose far end never"
                    + " introduced itself as a base: only a base can hold a reference, and weight sent there could never"
                    + " come back nor be written off (docs/objects.md §7)");
        }
        Held h = heldHere(value);
        if (h != null) {
            h.check();
            long w;
            while ((w = split(h, peer)) < 0) {
                weights.refill(h);
            }
            if (h.wantsRefill()) {
                weights.refillAhead(h);
            }
            boolean known = h.owner == peer || Peers.wasTold(to, h.owner);
            return ReferenceDescriptor.encodeIn(h.owner, h.id, w, h.strings, h.declares(declared),
                    known ? ReferenceDescriptor.KNOWN : 0);
        }
        SharedTypes.Offer offer = SharedTypes.offer(value.getClass());
        OwnedObjects.Entry e;
        synchronized (owned) {
            refuseDead(peer, "to");
            try {
                e = owned.grant(value, offer, options.grant(), options.virtualThreads());
            } catch (IllegalStateException full) {
                throw new RemoteException(Reason.ARGUMENT, full.getMessage(), full);
            }
            ledger.sent(id, e.id, peer, options.grant(), false);
        }
        // (the receiver knows this base by its addresses: it is a base, peer != 0, so it introduced itself or was reached;
        // or it is this base, where its own object comes home and no address is read)
        return ReferenceDescriptor.encodeIn(id, e.id, options.grant(), offer.strings(),
                ReferenceDescriptor.declares(offer.names(), declared), ReferenceDescriptor.SENDER);
    }

    /**
     * The hold behind {@code value} if it is a proxy of another base's object, or null (it is no such proxy): the one
     * passed last is read from its entry (no look-up of its handler in the JDK's proxy tables, ~15 ns).
     *
     * @throws RemoteException {@code ARGUMENT} if another base of this process holds it
     */
    private Held heldHere(Object value) {
        Held h = held.lastHeld(value);
        if (h != null) {
            return h;
        }
        SharedHandler handler = SharedHandler.of(value);
        if (handler == null) {
            return null;
        }
        if (handler.space() != this) {
            throw new RemoteException(Reason.ARGUMENT, handler.held + " is held by another base of this process: pass it"
                    + " through that base");
        }
        return handler.held;
    }

    /**
     * Splits {@code h}'s weight for a reference to base {@code peer}, counted as sent there: half of it (to
     * the owner possibly 0, as home needs none); -1 if too little is left (refill first).
     */
    private long split(Held h, long peer) {
        synchronized (ledger) {
            refuseDead(peer, "to");
            long w;
            if (peer == h.owner) {
                w = h.splitHome();
            } else {
                w = h.split();
                if (w == 0) {
                    return -1;
                }
            }
            ledger.sent(h.owner, h.id, peer, w, true);
            return w;
        }
    }

    @Override
    public Object decode(MemorySegment payload, Class<?> declared, Endpoint over) {
        long peer = peers.peerOf(over);
        if (ReferenceDescriptor.id(payload) != 0) {
            return decode(payload, declared, peer);
        }
        Reference r = read(payload, declared, peer); // a base introducing itself over a connection it made
        if (r.weight() != 0 || over == null || r.addresses().isEmpty()) {
            throw new IllegalArgumentException("a reference to object #0, which no base hands out");
        }
        peers.introduced(over, r.owner(), r.addresses()); // (a base connecting to itself too: it is a base)
        Introduction i = new Introduction(r.owner(), r.addresses());
        if (!declared.isInstance(i)) {
            throw new IllegalArgumentException("an introduction as " + declared.getName());
        }
        return i;
    }

    /** The object the reference in {@code payload}, from base {@code peer} (0: not known), names, as {@code declared}. */
    Object decode(MemorySegment payload, Class<?> declared, long peer) {
        Object again = held.again(payload, declared, peer);
        if (again != null) {
            return again;
        }
        Reference r = read(payload, declared, peer);
        if (r.id() == 0) {
            throw new IllegalArgumentException("a reference to object #0, which no base hands out");
        }
        return decode(r, declared, peer);
    }

    /**
     * The reference in {@code payload}, read as {@code declared}, checked ({@link ReferenceDescriptor#decode(MemorySegment,
     * ReferenceDescriptor.Strings, Class)}); one to an object this base holds already, carrying the strings its hold has,
     * makes no string.
     */
    private Reference read(MemorySegment payload, Class<?> declared, long peer) {
        long owner = ReferenceDescriptor.owner(payload);
        Reference r = ReferenceDescriptor.decode(payload, owner == 0 || owner == id ? null
                : held.strings(owner, ReferenceDescriptor.id(payload)), declared);
        return withAddresses(payload, r, peer);
    }

    /**
     * {@code r}, read from {@code payload} and sent by base {@code peer}, with the addresses its form leaves out: a
     * {@link ReferenceDescriptor#SENDER} one's owner must be {@code peer}, a {@link ReferenceDescriptor#KNOWN} one's
     * may be any base; either reads the addresses this base knows the owner by (none needed if it is this base's own
     * object coming home, or sent by this base itself in the SENDER form).
     *
     * @throws IllegalArgumentException if a SENDER one names another owner, or the sender is not known as a base; if
     *         this base knows no address of the owner
     */
    private Reference withAddresses(MemorySegment payload, Reference r, long peer) {
        boolean known = ReferenceDescriptor.ofKnownOwner(payload);
        if (!known && !ReferenceDescriptor.fromSender(payload)) {
            return r; // the addresses travelled
        }
        if (r.owner() == id && (known || peer == id)) {
            return r; // one of this base's objects coming home (or it sent itself: a copy made here): no address is read
        }
        if (!known && (peer == 0 || r.owner() != peer)) {
            throw new IllegalArgumentException("a reference to its sender's own object naming " + BaseIds.name(r.owner())
                    + " as its owner, from " + (peer == 0 ? "a connection whose far end never introduced itself" : BaseIds.name(peer)));
        }
        List<String> at = peers.addressesOf(r.owner());
        if (at.isEmpty()) {
            throw new IllegalArgumentException(known ? "a reference to " + BaseIds.name(r.owner()) + "'s object without its"
                    + " addresses, which this base was never given" : "a reference to its sender's own object from "
                    + BaseIds.name(peer) + ", whose addresses this base does not know");
        }
        return new Reference(r.owner(), r.id(), r.weight(), at, r.interfaces());
    }

    /**
     * The object {@code r}, from base {@code peer}, names, as {@code declared}; with {@code declared} null, read as no type
     * ({@link #dropped}): its weight taken in, and null.
     */
    private Object decode(Reference r, Class<?> declared, long peer) {
        if (r.owner() == id) { // one of ours, coming home: its weight comes back
            Object impl;
            synchronized (owned) {
                refuseDead(peer, "from");
                impl = owned.credit(r.id(), r.weight());
                ledger.received(id, r.id(), peer, r.weight(), false);
                if (owned.get(r.id()) == null) {
                    ledger.forget(id, r.id());
                }
            }
            if (declared != null && !declared.isInstance(impl)) {
                throw new IllegalArgumentException("a reference to object #" + Integer.toUnsignedString(r.id()) + " as "
                        + declared.getName() + ", which it does not implement");
            }
            return impl;
        }
        if (r.weight() == 0) {
            throw new IllegalArgumentException("a reference to " + BaseIds.name(r.owner()) + "'s object #"
                    + Integer.toUnsignedString(r.id()) + " without weight");
        }
        if (r.addresses().isEmpty()) {
            throw new IllegalArgumentException("a reference to " + BaseIds.name(r.owner()) + "'s object without its addresses");
        }
        if (r.owner() == peer && !peers.addressesOf(peer).equals(r.addresses())) { // the sender vouches for itself
            throw new IllegalArgumentException("a reference to the sender's own object with addresses " + r.addresses()
                    + ", not the sender's " + peers.addressesOf(peer));
        }
        peers.know(r.owner(), r.addresses());
        synchronized (ledger) {
            refuseDead(peer, "from");
            if (declared == null) {
                held.absorb(r, peer);
                return null;
            }
            return held.resolve(r, declared, peer);
        }
    }

    /**
     * Nothing is accepted from a base declared dead, nor sent to it (a census wrote off what it held, §7): a
     * reference from one is malformed, one to it fails {@code GONE}. Checked under the lock that also
     * guards the weight's accounting, so a census sees either the weight or the refusal.
     */
    private void refuseDead(long peer, String direction) {
        if (peer == 0 || !peers.isDead(peer)) {
            return;
        }
        String why = "a reference " + direction + " " + BaseIds.name(peer) + ", which was declared dead";
        if (direction.equals("to")) {
            throw new RemoteException(Reason.GONE, why);
        }
        throw new IllegalArgumentException(why);
    }

    /**
     * A reference of a message nobody reads: its weight must not leak. Read as no type (a {@link
     * ReferenceDescriptor#DECLARED} one names no interface here): one of this base's objects is credited; another
     * base's object's weight goes to this base's live hold of it, or straight home (no proxy is made).
     */
    @Override
    public void dropped(MemorySegment payload, Endpoint over) {
        try {
            Reference r = ReferenceDescriptor.decode(payload);
            if (r.id() == 0) {
                decode(payload, Shared.class, over); // an introduction
                return;
            }
            long peer = peers.peerOf(over);
            decode(withAddresses(payload, r, peer), null, peer);
        } catch (RuntimeException ignored) {
            // malformed: nothing to give back
        }
    }

    /**
     * A reference written for a message that was never sent: its weight comes back. One of this base's objects is
     * credited, as if it had come home (the grant stays counted as sent in the ledger: an overcount, which only delays
     * a census's freeing, docs/objects.md §7). Another base's object's split goes home to its owner, counted as sent
     * there (its hold stays as the split left it, so the ledger's account of the hold stays true).
     */
    @Override
    public void unsent(MemorySegment payload, Endpoint over) {
        Reference r;
        try {
            r = ReferenceDescriptor.decode(payload);
        } catch (RuntimeException e) {
            return;
        }
        if (r.id() == 0 || r.weight() == 0) {
            return;
        }
        if (r.owner() == id) {
            synchronized (owned) {
                try {
                    owned.credit(r.id(), r.weight());
                } catch (RuntimeException e) {
                    return; // nothing outstanding to give back to
                }
                if (owned.get(r.id()) == null) {
                    ledger.forget(id, r.id());
                }
            }
            return;
        }
        List<String> at = r.addresses().isEmpty() ? peers.addressesOf(r.owner()) : r.addresses();
        synchronized (ledger) {
            ledger.sent(r.owner(), r.id(), r.owner(), r.weight(), false);
        }
        weights.giveBack(r.owner(), r.id(), at, r.weight());
    }

    @Override
    public void closed(Endpoint over) {
        census.closed(over);
    }

    @Override
    public Target target(int id) {
        return owned.target(id);
    }

    // ------------------------------------------------------------------ weights (the owner's side; a holder's: HoldWeights)

    /** Another grant of {@code impl} (one of this base's objects) for base {@code caller}, a holder that ran out. */
    long grantMore(Object impl, long caller) {
        synchronized (owned) {
            try {
                long g = owned.grantMore(impl, options.grant());
                ledger.sent(id, owned.idOf(impl), caller, g, false);
                return g;
            } catch (IllegalStateException full) {
                throw new RemoteException(Reason.ARGUMENT, full.getMessage(), full);
            }
        }
    }

    /** Releases a proxy now: its weight goes home before this returns. */
    public void release(Object proxy) {
        Held h = SharedHandler.heldBy(proxy);
        if (h == null) {
            throw new IllegalArgumentException("not a reference to another base's object: " + proxy);
        }
        long w = weights.takeAll(h);
        held.drop(proxy);
        if (w > 0 && !peers.isGone(h.owner)) {
            weights.giveBackNow(h, w);
        }
    }

    // ------------------------------------------------------------------ the public operations

    /** Binds {@code object} under {@code name} (a first reference by name). */
    public void bind(String name, Shared object) {
        SharedTypes.offer(object.getClass());
        names.put(name, object);
    }

    public void allow(Class<?> c) {
        construction.allow(c);
    }

    /** The base at {@code address}. */
    public BaseHandle base(String address) {
        return new BaseHandle(this, peers.atAddress(address));
    }

    /** The owner's incarnation of {@code o}: this base's for its own objects. */
    public long home(Object o) {
        Held h = SharedHandler.heldBy(o);
        return h == null ? id : h.owner;
    }

    /** Whether {@code o} is a proxy of another base's object. */
    public static boolean isRemote(Object o) {
        return SharedHandler.heldBy(o) != null;
    }

    /** The space of the base holding {@code proxy}, or null if it is not a proxy. */
    public static ObjectSpace holderOf(Object proxy) {
        return SharedHandler.spaceOf(proxy);
    }

    /** A copy of {@code o} made on {@code target} (this base if it is this base's id): a reference to it. */
    public Object cloneOn(Object o, long target, List<String> targetAddresses) {
        Held h = SharedHandler.heldBy(o);
        if (h != null) {
            return peers.service(h.owner, h.addresses).cloneTo((Shared) o, target, String.join("\n", targetAddresses));
        }
        byte[] state = Arguments.state(this, o, target); // (shared objects in its fields: references for target)
        if (target == id) {
            return adopt(o.getClass(), state, id);
        }
        return peers.service(target, targetAddresses).adopt(id, o.getClass().getName(), state);
    }

    /** A copy of an object of class {@code c} from its state ({@link Arguments#state}), sent by base {@code peer}. */
    Object adopt(Class<?> c, byte[] state, long peer) {
        Object copy = Arguments.fromState(this, c, state, peer);
        if (!(copy instanceof Shared)) {
            throw new IllegalArgumentException(c.getName() + " is not shared");
        }
        return copy;
    }

    /** Objects of this base other bases may hold. */
    public int ownedCount() {
        return owned.size();
    }

    /** The weight of {@code o} (one of this base's objects) outstanding. */
    public long outstanding(Object o) {
        return owned.outstanding(o);
    }

    /** The weight this base holds of another base's object, through its proxy {@code proxy}. */
    public static long weightHeld(Object proxy) {
        Held h = SharedHandler.heldBy(proxy);
        return h == null ? 0 : h.weight();
    }

    /** Objects this base's ledger keeps an account of (docs/objects.md §7): those it holds or owns now. */
    public int ledgerAccounts() {
        return ledger.accounts();
    }

    /** Other bases' objects this base holds proxies of. */
    public int heldCount() {
        return held.size();
    }

    /** Messages this base's node received (for tests that count them). */
    public long messagesReceived() {
        return NodeAccess.nodes().messagesReceived(node);
    }

    /** Censuses this base completed as an owner, and objects they freed (§7). */
    public long[] censusCounts() {
        return census.counts();
    }

    public void close() {
        census.close();
        node.close();
    }
}
