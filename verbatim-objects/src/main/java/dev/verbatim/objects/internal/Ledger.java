package dev.verbatim.objects.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * This base's local record of where weight went (docs/objects.md §7), kept without any message: per object
 * {@code (owner, id)} it sent or received weight of, the weight this base holds of it (the sum over its
 * holds, 0 for its own objects) and, per peer base, two monotone totals: the weight <em>sent</em> to that
 * peer in references and the weight <em>received</em> from it. Peer 0 is "unknown" (a connection whose
 * base never introduced itself): weight sent there is always counted as in flight by a census.
 *
 * <p>What a census reads from it: {@link #holdsAndReceived} at a participant's phase-1 moment,
 * {@link #sentTo} at its phase-2 moment. A hold and its counters change together under this object's
 * monitor, which {@link ObjectSpace} also holds around each change of a {@link Held}'s weight, so a
 * snapshot never sees weight that is neither held nor counted as sent.
 *
 * <p>Invariant: for every object, hold = Σ received − Σ sent (of references to other bases' objects;
 * weight this base splits from a hold is sent, and weight arriving is received). Thread-safe (this
 * object's monitor).
 */
final class Ledger {
    /** One object's account. */
    static final class Account {
        long hold;
        /** Per peer base: [0] the weight sent to it, [1] the weight received from it. */
        final Map<Long, long[]> edges = new HashMap<>();

        long[] edge(long peer) {
            return edges.computeIfAbsent(peer, p -> new long[2]);
        }

        long total(int which) {
            long t = 0;
            for (long[] e : edges.values()) {
                t += e[which];
            }
            return t;
        }
    }

    static final int SENT = 0;
    static final int RECEIVED = 1;

    private final Map<Long, Map<Integer, Account>> byOwner = new HashMap<>();

    private Account account(long owner, int id) {
        return byOwner.computeIfAbsent(owner, o -> new HashMap<>()).computeIfAbsent(id, i -> new Account());
    }

    /** Weight {@code w} of {@code (owner, id)} left this base's holds for {@code peer}. */
    synchronized void sent(long owner, int id, long peer, long w, boolean fromHold) {
        if (w == 0) {
            return;
        }
        Account a = account(owner, id);
        a.edge(peer)[SENT] += w;
        if (fromHold) {
            a.hold -= w;
        }
    }

    /** Weight {@code w} of {@code (owner, id)} arrived from {@code peer} (into a hold if {@code toHold}). */
    synchronized void received(long owner, int id, long peer, long w, boolean toHold) {
        if (w == 0) {
            return;
        }
        Account a = account(owner, id);
        a.edge(peer)[RECEIVED] += w;
        if (toHold) {
            a.hold += w;
        }
    }

    /** The account of {@code (owner, id)}, or null (for reading under this monitor). */
    synchronized Account get(long owner, int id) {
        Map<Integer, Account> m = byOwner.get(owner);
        return m == null ? null : m.get(id);
    }

    /** Forgets one object (its owner forgot it: no weight of it can be anywhere). */
    synchronized void forget(long owner, int id) {
        Map<Integer, Account> m = byOwner.get(owner);
        if (m != null) {
            m.remove(id);
        }
    }

    /** Forgets every object of {@code owner} (declared dead: its objects are gone). */
    synchronized void forgetOwner(long owner) {
        byOwner.remove(owner);
    }

    /** The owners of objects this base holds weight of now. */
    synchronized List<Long> holdingOwners() {
        List<Long> out = new ArrayList<>();
        for (Map.Entry<Long, Map<Integer, Account>> e : byOwner.entrySet()) {
            for (Account a : e.getValue().values()) {
                if (a.hold > 0) {
                    out.add(e.getKey());
                    break;
                }
            }
        }
        return out;
    }

    /**
     * Phase 1 of a census of {@code owner}'s objects: for each of them, {@code id, hold, n, (peer, received)×n}.
     */
    synchronized long[] holdsAndReceived(long owner) {
        return report(owner, RECEIVED, true);
    }

    /** Phase 2: for each of {@code owner}'s objects, {@code id, 0, n, (peer, sent)×n}. */
    synchronized long[] sentTo(long owner) {
        return report(owner, SENT, false);
    }

    private long[] report(long owner, int which, boolean holds) {
        Map<Integer, Account> m = byOwner.get(owner);
        if (m == null) {
            return new long[0];
        }
        int n = 0;
        for (Account a : m.values()) {
            n += 3 + 2 * a.edges.size();
        }
        long[] out = new long[n];
        int at = 0;
        for (Map.Entry<Integer, Account> e : m.entrySet()) {
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
