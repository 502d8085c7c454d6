package dev.verbatim.objects.internal;

import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.internal.Endpoint;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The recovery after a base dies (docs/objects.md §7): weighted counting cannot tell an owner how much
 * weight died with a holder (forwarding sent it nothing), so the owner takes a <em>census</em> of the live
 * bases and lowers each object's outstanding weight to an upper bound of what they can still hold.
 *
 * <ul>
 * <li><b>Death.</b> A connection closes; if its base no longer answers as itself ({@link Peers#answers}), it
 *     died: it is declared dead here ({@link Peers#declareDead}: its connections closed, nothing from it
 *     accepted any more), every known base is told ({@code died}, each checks for itself), this base
 *     introduces itself to the owners of what it holds (so a base that knew them only through the dead one
 *     is found), and, if this base owns objects others hold, it runs a census after
 *     {@code BaseOptions.censusDelay} (the grace for those introductions).</li>
 * <li><b>Participants.</b> Every base known here, and every base they know, breadth first.</li>
 * <li><b>Phase 1.</b> Each participant declares the dead bases dead (or, if one answers it, refuses: no
 *     census), then reports its holds of this base's objects and the weight it received of them per peer
 *     ({@link Ledger#holdsAndReceived}).</li>
 * <li><b>Phase 2.</b> After every phase-1 report, each reports the weight it sent per peer.</li>
 * <li><b>Outcome.</b> Per object, {@code E = Σ holds + Σ over live edges S→R of what S→R may still carry of it}:
 *     {@code D = sent(S→R) − received(R←S)} of the owner's totals over all its objects, or per object the
 *     same difference capped by D where the sender's per-object sends are complete ({@link #bounds}); sent
 *     to a base that is neither dead nor a participant counts whole. The outstanding weight becomes
 *     {@code min(outstanding, E + granted since this base's phase 2 − come home since its phase 1)}, and an
 *     object at 0 is forgotten.</li>
 * </ul>
 *
 * <p>Safety: every term errs upwards (docs/objects.md §7 gives the argument), and nothing sent by a dead
 * base is accepted after a participant's phase 1. Any failure (a participant that cannot be reached, a
 * disagreement) abandons the census, which changes nothing. Thread-safe: one census at a time.
 */
final class Census {
    /**
     * One base's report: the owner's totals per peer (received or sent, over all its objects), and per object
     * it keeps an account of, its hold and its per-peer weight.
     */
    private record Report(Map<Long, Long> totals, Map<Integer, Long> holds, Map<Integer, Map<Long, Long>> edges) {
        static Report parse(long[] r, int from) {
            Map<Long, Long> totals = new HashMap<>();
            int at = from;
            int m = at < r.length ? (int) r[at++] : 0;
            for (int i = 0; i < m && at + 2 <= r.length; i++, at += 2) {
                totals.put(r[at], r[at + 1]);
            }
            Map<Integer, Long> holds = new HashMap<>();
            Map<Integer, Map<Long, Long>> edges = new HashMap<>();
            while (at + 3 <= r.length) {
                int id = (int) r[at];
                holds.put(id, r[at + 1]);
                int n = (int) r[at + 2];
                at += 3;
                Map<Long, Long> e = new HashMap<>();
                for (int i = 0; i < n && at + 2 <= r.length; i++, at += 2) {
                    e.put(r[at], r[at + 1]);
                }
                edges.put(id, e);
            }
            return new Report(totals, holds, edges);
        }

        long edge(int id, long peer) {
            Map<Long, Long> e = edges.get(id);
            Long v = e == null ? null : e.get(peer);
            return v == null ? 0 : v;
        }

        long total(int id) {
            Map<Long, Long> e = edges.get(id);
            long t = 0;
            if (e != null) {
                for (long v : e.values()) {
                    t += v;
                }
            }
            return t;
        }
    }

    /**
     * Where the census, the probes and the word of a death run: platform threads, because they wait for
     * replies, and RPC's waits hold a virtual thread's carrier (docs/objects.md §6): on a small machine a
     * few of them would starve the very calls they wait for. Daemon threads, gone when idle.
     */
    private static final ExecutorService WORKERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "verbatim-objects-census");
        t.setDaemon(true);
        return t;
    });

    /** The longest wait between two follow-up censuses. */
    static final long MAX_DELAY_MILLIS = 600_000;

    private final ObjectSpace space;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    /** The delay before the next census: the census delay after a death, doubling for each follow-up. */
    private volatile long delayMillis;
    private final Object running = new Object();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong freed = new AtomicLong();
    private volatile boolean closed;

    Census(ObjectSpace space) {
        this.space = space;
    }

    /** Connection {@code over} closed: if its base no longer answers, it died. */
    void closed(Endpoint over) {
        Peers peers = space.peers();
        long peer = peers.closed(over);
        if (peer == 0 || peer == space.id() || closed || space.node() == null || space.node().isClosed() || peers.isDead(peer)) {
            return;
        }
        WORKERS.execute(() -> {
            if (!closed && !peers.answers(peer)) {
                noticed(peer);
            }
        });
    }

    /** Base {@code d} is dead, as far as this base can tell: declare it, spread the word, re-anchor, census. */
    void noticed(long d) {
        Peers peers = space.peers();
        if (d == space.id() || !peers.declareDead(d)) {
            return;
        }
        space.ledger().forgetOwner(d);
        delayMillis = space.options().censusDelay().toMillis();
        for (long owner : space.ledger().holdingOwners()) { // introduce this base to the owners of what it holds
            WORKERS.execute(() -> quietly(() -> peers.service(owner)));
        }
        for (Peers.Peer p : peers.live()) {
            WORKERS.execute(() -> quietly(() -> peers.service(p.incarnation).died(d)));
        }
        schedule();
    }

    /** Another base says {@code d} died: whether this base agrees (then it is declared dead here too). */
    boolean told(long d) {
        if (space.peers().isDead(d)) {
            return true;
        }
        if (d == space.id() || offCarrier(d)) {
            return false;
        }
        noticed(d);
        return true;
    }

    /** The bases known here and believed live, one per line: {@code id address...}. */
    String peersText() {
        StringBuilder b = new StringBuilder();
        for (Peers.Peer p : space.peers().live()) {
            b.append(p.incarnation);
            for (String a : p.addresses) {
                b.append(' ').append(a);
            }
            b.append('\n');
        }
        return b.toString();
    }

    /** Phase 1 here, of a census of {@code owner}'s objects: {@code [1, report]}, or {@code [0]} if a dead one answers. */
    long[] holds(long owner, long[] dead) {
        for (long d : dead) {
            if (!told(d)) {
                return new long[] {0};
            }
        }
        long[] r = space.ledger().holdsAndReceived(owner);
        long[] out = new long[r.length + 1];
        out[0] = 1;
        System.arraycopy(r, 0, out, 1, r.length);
        return out;
    }

    /** Phase 2 here, of a census of {@code owner}'s objects. */
    long[] sent(long owner) {
        return space.ledger().sentTo(owner);
    }

    /**
     * Runs a census of this base's objects after the current delay, unless one is waiting to run already. After
     * a census, while some object's count is an estimate (it was counted by a census: snapshots taken at
     * different moments may count a moving reference twice, an overcount), or if the census was abandoned,
     * another follows, each after twice the delay of the one before, up to {@link #MAX_DELAY_MILLIS}: so an
     * object whose live holders drop it after a census is freed by a later one.
     */
    void schedule() {
        if (closed || space.owned().size() == 0 || !scheduled.compareAndSet(false, true)) {
            return;
        }
        WORKERS.execute(() -> {
            try {
                Thread.sleep(Math.max(delayMillis, space.options().censusDelay().toMillis()));
            } catch (InterruptedException e) {
                return;
            }
            scheduled.set(false);
            boolean done = false;
            synchronized (running) {
                try {
                    done = run();
                } catch (RuntimeException e) {
                    // abandoned: nothing changed
                }
            }
            if (!done || space.owned().estimated() > 0) {
                delayMillis = Math.min(MAX_DELAY_MILLIS, 2 * Math.max(1, delayMillis));
                schedule();
            }
        });
    }

    /** One census; whether it completed (false: abandoned, or nothing to count). */
    private boolean run() {
        if (closed || space.owned().size() == 0) {
            return true;
        }
        long self = space.id();
        Peers peers = space.peers();
        Map<Long, BaseService> parts = participants(self, peers);
        if (parts == null) {
            return false;
        }
        long[] dead = peers.dead();
        Map<Long, Report> received = new HashMap<>();
        for (Map.Entry<Long, BaseService> e : parts.entrySet()) {
            long[] r;
            try {
                r = e.getValue().censusHolds(self, dead);
            } catch (RemoteException x) {
                failed(e.getKey());
                return false;
            }
            if (r.length == 0 || r[0] != 1) {
                return false; // a base declared dead here answers there: it is not dead, and nothing may be written off
            }
            received.put(e.getKey(), Report.parse(r, 1));
        }
        Report mine1 = Report.parse(own(() -> space.ledger().holdsAndReceived(self)), 0);
        received.put(self, mine1);
        Map<Long, Report> sent = new HashMap<>();
        for (Map.Entry<Long, BaseService> e : parts.entrySet()) {
            try {
                sent.put(e.getKey(), Report.parse(e.getValue().censusSent(self), 0));
            } catch (RemoteException x) {
                failed(e.getKey());
                return false;
            }
        }
        Report mine2 = Report.parse(own(() -> space.ledger().sentTo(self)), 0);
        sent.put(self, mine2);
        outcome(self, received, sent, mine1, mine2);
        completed.incrementAndGet();
        return true;
    }

    /**
     * This base's own report, under its objects' lock: a reference to one of them is checked against the
     * dead bases, granted and counted under that lock, so a grant is either in the report or after it (and
     * then never to a dead base).
     */
    private long[] own(java.util.function.Supplier<long[]> report) {
        synchronized (space.owned()) {
            return report.get();
        }
    }

    /** Every base known here and every base they know, breadth first; null if one cannot be asked. */
    private Map<Long, BaseService> participants(long self, Peers peers) {
        Map<Long, BaseService> parts = new LinkedHashMap<>();
        Deque<Long> todo = new ArrayDeque<>();
        for (Peers.Peer p : peers.live()) {
            todo.add(p.incarnation);
        }
        while (!todo.isEmpty()) {
            long b = todo.poll();
            if (b == self || parts.containsKey(b) || peers.isDead(b)) {
                continue;
            }
            String known;
            BaseService s;
            try {
                s = peers.service(b);
                known = s.peers();
            } catch (RemoteException x) {
                failed(b);
                return null;
            }
            parts.put(b, s);
            for (String line : known.split("\n")) {
                if (line.isBlank()) {
                    continue;
                }
                String[] f = line.split(" ");
                long id = Long.parseLong(f[0]);
                if (id != self && f.length > 1) {
                    peers.know(id, List.of(f).subList(1, f.length));
                    todo.add(id);
                }
            }
        }
        return parts;
    }

    /**
     * E per object of {@code self}'s (each id of {@code ids}): its holds, plus what live edges may still carry
     * of it (the class comment). An edge S→R carries at most D = sent(S→R) − received(R←S) of the owner's
     * totals, the in-flight weight of all its objects together (every per-object difference is ≥ 0, so each
     * is at most their sum). Per object, the difference of the per-object totals is used, capped by D,
     * wherever the sender's per-object sends are complete ({@link Ledger}): the owner's own, and a holder's
     * to any base but the owner. A holder's sends home may have been forgotten with an account that went, so
     * on an edge into this base D itself counts for every object.
     */
    private static Map<Integer, Long> bounds(long self, long[] ids, Map<Long, Report> received, Map<Long, Report> sent,
                                             Peers peers) {
        Map<Integer, Long> e = new HashMap<>();
        long anyObject = 0; // what may be on its way home, of any object
        for (Map.Entry<Long, Report> s : sent.entrySet()) {
            long from = s.getKey();
            Report out = s.getValue();
            for (Map.Entry<Long, Long> t : out.totals.entrySet()) {
                long to = t.getKey();
                if (peers.isDead(to)) {
                    continue; // written off: it died
                }
                Report r = received.get(to);
                long d = Math.max(0, t.getValue() - (r == null ? 0 : r.totals.getOrDefault(from, 0L)));
                if (to == self && from != self) {
                    anyObject = plus(anyObject, d);
                    continue;
                }
                for (long id : ids) {
                    int i = (int) id;
                    long exact = Math.max(0, out.edge(i, to) - (r == null ? 0 : r.edge(i, from)));
                    e.merge(i, Math.min(d, exact), Census::plus);
                }
            }
        }
        for (Report r : received.values()) {
            r.holds.forEach((id, hold) -> e.merge(id, Math.max(0, hold), Census::plus));
        }
        for (long id : ids) {
            e.merge((int) id, anyObject, Census::plus);
        }
        return e;
    }

    /** Lowers each object's outstanding weight to its bound; forgets those at 0. */
    private void outcome(long self, Map<Long, Report> received, Map<Long, Report> sent, Report mine1, Report mine2) {
        OwnedObjects owned = space.owned();
        Ledger ledger = space.ledger();
        synchronized (owned) {
            long[] all = owned.outstandingById();
            long[] ids = new long[all.length / 2];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = all[2 * i];
            }
            Map<Integer, Long> e = bounds(self, ids, received, sent, space.peers());
            for (int i = 0; i < all.length; i += 2) {
                int id = (int) all[i];
                Ledger.Account a = ledger.get(self, id);
                long sentSince = a == null ? 0 : a.total(Ledger.SENT) - mine2.total(id);
                long cameSince = a == null ? 0 : a.total(Ledger.RECEIVED) - mine1.total(id);
                long bound = plus(e.getOrDefault(id, 0L), sentSince) - cameSince;
                if (owned.bound(id, bound)) {
                    ledger.forget(self, id);
                    freed.incrementAndGet();
                }
            }
        }
    }

    /** A participant could not be asked: if it does not answer either, it died (and another census follows). */
    private void failed(long b) {
        if (!space.peers().answers(b)) {
            noticed(b);
        }
    }

    private static long plus(long a, long b) {
        long s = a + b;
        return ((a ^ s) & (b ^ s)) < 0 ? Long.MAX_VALUE : s; // saturates: an overcount only delays freeing
    }

    /**
     * Whether base {@code d} answers, asked from a platform thread: the base service runs on virtual threads,
     * and one waiting in RPC for the probe's reply would hold its carrier; parked on a future it does not.
     */
    private boolean offCarrier(long d) {
        if (!Thread.currentThread().isVirtual()) {
            return space.peers().answers(d);
        }
        return CompletableFuture.supplyAsync(() -> space.peers().answers(d), WORKERS).join();
    }

    private static void quietly(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException ignored) {
            // the base cannot be reached: it is found (or not) by its own death
        }
    }

    /** {censuses completed, objects they freed}. */
    long[] counts() {
        return new long[] {completed.get(), freed.get()};
    }

    void close() {
        closed = true;
    }
}
