package dev.verbatim.objects.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * This base's local record of where weight went (docs/objects.md §7), kept without any message.
 *
 * <ul>
 *   <li><b>Per owner and peer</b>, two monotone <em>totals</em> over all of that owner's objects: the weight
 *       sent to the peer in references and the weight received from it. Never lowered while the owner lives
 *       (forgetting an object keeps what it added), so for every edge S→R, {@code sent(S→R) − received(R←S)}
 *       is what is in flight on it of all the owner's objects together, an upper bound of what is in flight
 *       of any one of them. O(owners × peers), whatever the number of objects.</li>
 *   <li><b>Per object</b> {@code (owner, id)} it holds or owns: an {@link Account}, the weight this base holds
 *       of it (the sum over its holds, 0 for its own objects) and, per peer, the same two totals for that
 *       object alone. An account of this base's own object goes when the object is forgotten (all its weight
 *       came home: its id is never used again). An account of another base's object goes when its hold is
 *       back to 0 (every proxy released or collected: its weight went home) <em>if it sent weight to no base
 *       but the owner</em>: the short-lived objects a base is lent and drops leave nothing. So the per-object
 *       sends of a holder to any base other than the owner are complete (an account that made such a send
 *       never goes, and one made again after one went starts with nothing such to forget); its sends home
 *       may not be (an account made again forgets the old one's), which is why a census bounds what is
 *       on its way home by the totals, not per object ({@link Census}).</li>
 * </ul>
 *
 * Peer 0 is "unknown" (a connection whose far end never introduced itself): no weight is ever sent there
 * ({@link ObjectSpace} refuses it), so nothing is counted as in flight there for ever.
 *
 * <p>What a census reads from it: {@link #holdsAndReceived} at a participant's phase-1 moment,
 * {@link #sentTo} at its phase-2 moment. A hold and its counters change together under this object's
 * monitor, which {@link ObjectSpace} also holds around each change of a {@link Held}'s weight, so a
 * snapshot never sees weight that is neither held nor counted as sent.
 *
 * <p>Invariant: for every object with an account, hold = Σ received − Σ sent since the account was made
 * (of references to other bases' objects; weight this base splits from a hold is sent, and weight arriving
 * is received). Thread-safe (this object's monitor).
 */
final class Ledger {
    /** One object's account. */
    static final class Account {
        long hold;
        /** Per peer base: [0] the weight sent to it, [1] the weight received from it. */
        final Map<Long, long[]> edges = new HashMap<>();
        /** The edge {@link #edge} found last, and its peer (an edge is never removed): a hold mostly talks to one base. */
        private long lastPeer;
        private long[] lastEdge;

        long[] edge(long peer) {
            if (lastEdge == null || lastPeer != peer) {
                lastEdge = edges.computeIfAbsent(peer, p -> new long[2]);
                lastPeer = peer;
            }
            return lastEdge;
        }

        long total(int which) {
            long t = 0;
            for (long[] e : edges.values()) {
                t += e[which];
            }
            return t;
        }
    }

    /** One owner's objects: their accounts, and the totals over all of them per peer. */
    private static final class Owner {
        final Map<Integer, Account> accounts = new HashMap<>();
        /** Per peer base: [0] the weight sent to it, [1] the weight received from it, of all this owner's objects. */
        final Map<Long, long[]> totals = new HashMap<>();
        /** What {@link #totals(long)} and {@link #account(int)} found last (totals never go; an account going clears it). */
        private long lastPeer;
        private long[] lastTotals;
        private int lastId;
        private Account lastAccount;

        long[] totals(long peer) {
            if (lastTotals == null || lastPeer != peer) {
                lastTotals = totals.computeIfAbsent(peer, p -> new long[2]);
                lastPeer = peer;
            }
            return lastTotals;
        }

        Account account(int id) {
            if (lastAccount == null || lastId != id) {
                lastAccount = accounts.computeIfAbsent(id, i -> new Account());
                lastId = id;
            }
            return lastAccount;
        }

        void remove(int id) {
            accounts.remove(id);
            if (lastId == id) {
                lastAccount = null;
            }
        }
    }

    static final int SENT = 0;
    static final int RECEIVED = 1;

    private final Map<Long, Owner> byOwner = new HashMap<>();
    /** The owner {@link #owner} found last (cleared when it goes): most references are to one owner's objects. */
    private long lastOwnerId;
    private Owner lastOwner;

    private Owner owner(long owner) {
        if (lastOwner == null || lastOwnerId != owner) {
            lastOwner = byOwner.computeIfAbsent(owner, o -> new Owner());
            lastOwnerId = owner;
        }
        return lastOwner;
    }

    /** Weight {@code w} of {@code (owner, id)} left this base's holds for {@code peer}. */
    synchronized void sent(long owner, int id, long peer, long w, boolean fromHold) {
        if (w == 0) {
            return;
        }
        Owner o = owner(owner);
        o.totals(peer)[SENT] += w;
        Account a = o.account(id);
        a.edge(peer)[SENT] += w;
        if (fromHold) {
            a.hold -= w;
            if (a.hold == 0 && sentOnlyTo(a, owner)) { // (the totals keep what it sent)
                o.remove(id);
            }
        }
    }

    /** Whether account {@code a} sent weight to no base but {@code owner}. */
    private static boolean sentOnlyTo(Account a, long owner) {
        for (Map.Entry<Long, long[]> e : a.edges.entrySet()) {
            if (e.getValue()[SENT] != 0 && e.getKey() != owner) {
                return false;
            }
        }
        return true;
    }

    /** Weight {@code w} of {@code (owner, id)} arrived from {@code peer} (into a hold if {@code toHold}). */
    synchronized void received(long owner, int id, long peer, long w, boolean toHold) {
        if (w == 0) {
            return;
        }
        Owner o = owner(owner);
        o.totals(peer)[RECEIVED] += w;
        Account a = o.account(id);
        a.edge(peer)[RECEIVED] += w;
        if (toHold) {
            a.hold += w;
        }
    }

    /** The account of {@code (owner, id)}, or null (for reading under this monitor). */
    synchronized Account get(long owner, int id) {
        Owner o = byOwner.get(owner);
        return o == null ? null : o.accounts.get(id);
    }

    /** Forgets one object's account (its owner forgot it: no weight of it can be anywhere); the totals stay. */
    synchronized void forget(long owner, int id) {
        Owner o = byOwner.get(owner);
        if (o != null) {
            o.remove(id);
        }
    }

    /** Forgets every object of {@code owner}, and its totals (declared dead: its objects are gone). */
    synchronized void forgetOwner(long owner) {
        byOwner.remove(owner);
        if (lastOwnerId == owner) {
            lastOwner = null;
        }
    }

    /** How many objects this ledger keeps an account of (what it holds or owns now). */
    synchronized int accounts() {
        int n = 0;
        for (Owner o : byOwner.values()) {
            n += o.accounts.size();
        }
        return n;
    }

    /** The owners of objects this base holds weight of now. */
    synchronized List<Long> holdingOwners() {
        List<Long> out = new ArrayList<>();
        for (Map.Entry<Long, Owner> e : byOwner.entrySet()) {
            for (Account a : e.getValue().accounts.values()) {
                if (a.hold > 0) {
                    out.add(e.getKey());
                    break;
                }
            }
        }
        return out;
    }

    /**
     * Phase 1 of a census of {@code owner}'s objects: {@code m, (peer, received)×m} (the owner's totals),
     * then for each object with an account {@code id, hold, n, (peer, received)×n}.
     */
    synchronized long[] holdsAndReceived(long owner) {
        return report(owner, RECEIVED, true);
    }

    /** Phase 2: {@code m, (peer, sent)×m}, then for each object {@code id, 0, n, (peer, sent)×n}. */
    synchronized long[] sentTo(long owner) {
        return report(owner, SENT, false);
    }

    private long[] report(long owner, int which, boolean holds) {
        Owner o = byOwner.get(owner);
        if (o == null) {
            return new long[] {0};
        }
        int n = 1 + 2 * o.totals.size();
        for (Account a : o.accounts.values()) {
            n += 3 + 2 * a.edges.size();
        }
        long[] out = new long[n];
        int at = 0;
        out[at++] = o.totals.size();
        for (Map.Entry<Long, long[]> p : o.totals.entrySet()) {
            out[at++] = p.getKey();
            out[at++] = p.getValue()[which];
        }
        for (Map.Entry<Integer, Account> e : o.accounts.entrySet()) {
            Account a = e.getValue();
            out[at++] = Integer.toUnsignedLong(e.getKey());
            out[at++] = holds ? a.hold : 0;
            out[at++] = a.edges.size();
            for (Map.Entry<Long, long[]> p : a.edges.entrySet()) {
                out[at++] = p.getKey();
                out[at++] = p.getValue()[which];
            }
        }
        return out;
    }
}
