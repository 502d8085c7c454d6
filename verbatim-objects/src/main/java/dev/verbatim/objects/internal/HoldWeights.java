package dev.verbatim.objects.internal;

import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.RemoteException.Reason;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The weight a base's holds of other bases' objects take in, send home and ask their owners for (docs/objects.md §3):
 * an arrival's weight added and counted, the excess above {@link Held#HIGH_WATER} and a released hold's weight sent
 * home, another grant asked when a hold runs low (ahead of need, on a thread of its own) or out (before a call that
 * passes it, or while a reference is written). Every change of a hold's weight is counted in the {@link Ledger} under
 * its monitor, as {@link ObjectSpace}'s are. The owner's side (grants handed out, weight credited back) is
 * {@link ObjectSpace}'s and {@link OwnedObjects}'.
 *
 * <p>Thread-safe.
 */
final class HoldWeights {
    private final ObjectSpace space;
    private final Peers peers;
    private final Ledger ledger;

    /**
     * How many holds of this base have less than 2 to split now and are not released (one arrived with 1, or a split
     * left 1, and no weight came since): while there is none, a call need not look for one among its arguments
     * ({@link #refillArguments}). Counted by the holds as they go low and come back (was a flag of the process set for
     * good: one hold that ran out once made every later call of the process look its arguments over).
     */
    private final AtomicInteger exhausted = new AtomicInteger();

    HoldWeights(ObjectSpace space) {
        this.space = space;
        this.peers = space.peers();
        this.ledger = space.ledger();
    }

    /** The count of this base's exhausted holds, for its holds to keep ({@link Held#Held}). */
    AtomicInteger exhausted() {
        return exhausted;
    }

    /**
     * Adds weight {@code w}, which arrived from base {@code peer}, to {@code h}, counted, its excess sent home: for an
     * arrival of an object held already ({@link HeldObjects#resolve}, {@link HeldObjects#absorb}, and
     * {@link HeldObjects#again} for the object held last); false if {@code h} was released or {@code peer} was declared
     * dead (nothing done: the caller decides).
     */
    boolean takeIn(Held h, long w, long peer) {
        synchronized (ledger) {
            long excess = peers.isDead(peer) ? -1 : h.add(w);
            if (excess >= 0) {
                arrived(h, peer, w, excess);
            }
            return excess >= 0;
        }
    }

    /** Asks the owner of {@code h}'s object for another grant (the hold has no weight to split). */
    void refill(Held h) {
        long g = peers.grants(h.owner, h.addresses).grant(new WeightReturn(h.owner, h.id, 0), space.id());
        if (g <= 0) {
            throw new RemoteException(Reason.PROTOCOL, "no weight granted for " + h);
        }
        boolean added;
        synchronized (ledger) {
            long excess = h.add(g);
            added = excess >= 0;
            ledger.received(h.owner, h.id, h.owner, g, true);
            if (!added) {
                ledger.sent(h.owner, h.id, h.owner, g, true);
            }
            sendHome(h, excess);
        }
        if (!added) { // released meanwhile (by another thread): the grant goes back at once
            giveBackNow(h, g);
            h.check();
        }
    }

    /**
     * Asks {@code h}'s owner for another grant on a thread of its own, ahead of need ({@link Held#LOW_WATER}): a
     * holder that forwards the object on and on then never waits for the owner on a call's path (a refill
     * there costs a round trip to the owner, over a connection that is mostly idle: a wake-up of its reader).
     * A refill that fails leaves the hold as it was: the one that is needed then is made on the path, as before.
     */
    void refillAhead(Held h) {
        if (space.node().isClosed() || peers.isGone(h.owner)) {
            h.refilled();
            return;
        }
        Thread.ofVirtual().name("verbatim-objects-refill").start(() -> {
            try {
                refill(h);
            } catch (RuntimeException ignored) {
                // the owner is gone, or the hold was released: a forward that needs weight refills (and fails) itself
            } finally {
                h.refilled();
            }
        });
    }

    /**
     * Weight {@code w} of {@code h}'s object arrived from base {@code peer} and was added to the hold, which took
     * {@code excess} of it off to send home ({@link Held#HIGH_WATER}): both counted, and the excess sent (on a
     * thread of its own). Nothing is counted for an owner declared dead (§7: what it handed out no longer matters).
     * Under the ledger's monitor.
     */
    void arrived(Held h, long peer, long w, long excess) {
        if (peers.isDead(h.owner)) {
            return;
        }
        ledger.received(h.owner, h.id, peer, w, true);
        sendHome(h, excess);
    }

    /**
     * The weight of a hold never entered (a reference of a message dropped unread, {@link HeldObjects#absorb}), which
     * arrived from base {@code peer}: counted as received there and sent straight home, all of it in one message
     * (nothing is counted or sent for an owner declared dead). Under the ledger's monitor.
     */
    void passHome(Held h, long peer) {
        long w = h.takeAll();
        if (peers.isDead(h.owner)) {
            return;
        }
        ledger.received(h.owner, h.id, peer, w, true);
        sendHome(h, w);
    }

    /** Sends weight {@code w} (if positive) of {@code h}'s object home, counted as sent there. Under the ledger's monitor. */
    private void sendHome(Held h, long w) {
        if (w <= 0) {
            return;
        }
        ledger.sent(h.owner, h.id, h.owner, w, true);
        giveBack(h, w);
    }

    /** Releases hold {@code h}: all its weight, counted as sent home (0 if it was released already). */
    long takeAll(Held h) {
        synchronized (ledger) {
            long w = h.takeAll();
            ledger.sent(h.owner, h.id, h.owner, w, true);
            return w;
        }
    }

    /** Refills, before a call is sent, any argument that is a proxy with too little weight to split. */
    void refillArguments(Object[] args) {
        if (exhausted.get() == 0) {
            return; // no hold has less than 2 now: none needs a refill (and no argument's handler is looked up)
        }
        for (Object a : args) {
            Held h = SharedHandler.heldBy(a);
            if (h != null && h.exhausted()) {
                refill(h);
            }
        }
    }

    /** Sends weight {@code w} of {@code h}'s object home (on a thread of its own: the caller may be a cleaner). */
    void giveBack(Held h, long w) {
        giveBack(h.owner, h.id, h.addresses, w);
    }

    /**
     * Sends weight {@code w} of object {@code id} of base {@code owner}, which listens at {@code addresses}, home (on a
     * thread of its own); nothing once this base closed or the owner is gone.
     */
    void giveBack(long owner, int id, List<String> addresses, long w) {
        if (space.node().isClosed() || peers.isGone(owner)) {
            return;
        }
        Thread.ofVirtual().name("verbatim-objects-release").start(() -> giveBackNow(owner, id, addresses, w));
    }

    void giveBackNow(Held h, long w) {
        giveBackNow(h.owner, h.id, h.addresses, w);
    }

    private void giveBackNow(long owner, int id, List<String> addresses, long w) {
        try {
            peers.service(owner, addresses).release(new WeightReturn(owner, id, w));
        } catch (RuntimeException ignored) {
            // the owner is gone or unreachable: what it handed out no longer matters to anyone
        }
    }
}
