package dev.verbatim.bench.objects;

import dev.verbatim.bench.harness.CallLoop;
import dev.verbatim.bench.harness.Session;
import dev.verbatim.bench.objects.SharedFixtures.Elem;
import dev.verbatim.bench.objects.SharedFixtures.Element;
import dev.verbatim.bench.objects.SharedFixtures.NullService;
import dev.verbatim.bench.objects.SharedFixtures.Probe;
import dev.verbatim.objects.Base;
import dev.verbatim.objects.RemoteBase;

import java.util.HashMap;
import java.util.Map;

/**
 * The calls base 0 makes, one {@link CallLoop.Call} per contender and case, prepared on first use: the
 * probes looked up, the lists built. The other processes are 1 to {@code bases - 1}, their published
 * properties in the session with their index appended ({@code shm1}, {@code rmi2}, ...).
 *
 * <p>A list of {@code n} elements for a layout and a number of bases is built once per contender and
 * walked by every algorithm: from the tail to the head, element {@code i} created on its base
 * ({@link Layout#home}) with its next element as the constructor's argument (objects:
 * {@link RemoteBase#create}, so a next element of the same base arrives there as the object itself; RMI:
 * the factory of that process, which links a next element of its own by the object). The head is always
 * base 0's own object. Used by one thread.
 */
final class BaseZeroCalls {
    private final BaseProcess here;
    private final Session session;
    private final int elements;
    private final RemoteBase[] shmBases = new RemoteBase[ObjectsCase.MAX_BASES];
    private final RmiFixtures.RmiFactory[] factories = new RmiFixtures.RmiFactory[ObjectsCase.MAX_BASES];
    private final Map<String, Elem> objectLists = new HashMap<>();
    private final Map<String, RmiFixtures.RmiElem> rmiLists = new HashMap<>();
    /** The outcome of {@link #comeBackProbe}: null before it ran, empty when it passed. */
    private String comeBack;

    BaseZeroCalls(BaseProcess here, Session session, int elements) {
        this.here = here;
        this.session = session;
        this.elements = elements;
    }

    /** The call of {@code contender} in case {@code c}, each element of a walk working {@code work} ns. */
    CallLoop.Call call(String contender, ObjectsCase c, long work) throws Exception {
        if (c.isList() && contender.equals(ObjectsCase.NULL_RUN)) { // the hop's like for like: a remote link's worth of null calls
            Probe p = shmProbe(1);
            int links = elements - 1;
            return seq -> {
                for (int i = 0; i < links; i++) {
                    p.nullCall();
                }
                return 0;
            };
        }
        if (c.isList()) {
            long w = c.noWork() ? 0 : work;
            return switch (contender) {
                case ObjectsCase.OBJECTS -> {
                    if (c.layout().comesBack(elements, c.bases()) && comeBackProbe() != null) {
                        throw new IllegalStateException("not run: " + comeBackProbe());
                    }
                    Elem head = objectList(c.layout(), c.bases());
                    yield switch (c.traversal()) {
                        case SERIAL -> seq -> head.serial(w);
                        case THREADED -> seq -> head.threaded(w);
                        case HYBRID -> seq -> head.hybrid(w);
                    };
                }
                case ObjectsCase.RMI -> {
                    if (c.traversal() != Traversal.SERIAL) {
                        throw new IllegalArgumentException("rmi walks the list serially only");
                    }
                    RmiFixtures.RmiElem head = rmiList(c.layout(), c.bases());
                    yield seq -> head.serial(w);
                }
                default -> throw new IllegalArgumentException(contender + " does not walk lists");
            };
        }
        boolean tcp = c.medium().equals("tcp");
        if (c == ObjectsCase.FORWARD_REF) {
            return switch (contender) {
                case ObjectsCase.OBJECTS -> {
                    Probe b = shmProbe(1);
                    Probe third = shmProbe(2);
                    yield seq -> {
                        third.put(b);
                        return 0;
                    };
                }
                case ObjectsCase.BYTES -> {
                    Probe third = shmProbe(2);
                    byte[] reference = new byte[referenceBytes()];
                    yield seq -> {
                        third.putBytes(reference);
                        return 0;
                    };
                }
                case ObjectsCase.RMI -> {
                    RmiFixtures.RmiProbe b = factory(1).probe();
                    RmiFixtures.RmiProbe third = factory(2).probe();
                    yield seq -> {
                        third.put(b);
                        return 0;
                    };
                }
                default -> throw new IllegalArgumentException(contender + " does not pass references");
            };
        }
        return switch (contender) {
            case ObjectsCase.FLOOR -> {
                if (tcp) {
                    throw new IllegalArgumentException("the floor is measured over shm only");
                }
                yield new FloorTurns.Ping(here.rpc.lookup(session.require("rpcShm1"), "floor", FloorTurns.FloorService.class),
                        session);
            }
            case ObjectsCase.RPC -> {
                NullService s = here.rpc.lookup(session.require(tcp ? "rpcTcp1" : "rpcShm1"), "null", NullService.class);
                yield seq -> {
                    s.nullCall();
                    return 0;
                };
            }
            case ObjectsCase.OBJECTS -> {
                Base base = tcp ? here.tcp : here.shm;
                Probe p = base.lookup(session.require(tcp ? "tcp1" : "shm1"), "probe", Probe.class);
                yield seq -> {
                    p.nullCall();
                    return 0;
                };
            }
            case ObjectsCase.RMI -> {
                RmiFixtures.RmiProbe p = factory(1).probe();
                yield seq -> {
                    p.nullCall();
                    return 0;
                };
            }
            default -> throw new IllegalArgumentException("no contender " + contender);
        };
    }

    /**
     * Why a walk that comes back to a base it left cannot run here, or null when it can: walks a list of 4
     * elements scattered over the probe bases of processes 0 and 1 (A, B, A, B) once, within
     * {@link BaseProcess#PROBE_TIMEOUT}. Tried once; a probe that timed out leaves only the probe bases'
     * threads waiting.
     */
    String comeBackProbe() {
        if (comeBack == null) {
            try {
                RemoteBase one = here.probe.base(session.require("probe1"));
                Elem next = null;
                for (int i = 3; i >= 0; i--) {
                    next = i % 2 == 0 ? new Element(i, next) : one.create(Elem.class, Element.class, (long) i, next);
                }
                long sum = next.serial(0);
                comeBack = sum == 6 ? "" : "the probe walk A, B, A, B returned " + sum + ", not 6";
            } catch (RuntimeException e) {
                comeBack = "a call chain that comes back to a base a second time (A, B, A, B: a 4-element list scattered"
                        + " over 2 bases) fails in the objects layer: " + e;
            }
        }
        return comeBack.isEmpty() ? null : comeBack;
    }

    /**
     * The length of a reference to an object of another base offering one shared interface, as it travels again and
     * again to a third base where that interface is declared (docs/objects.md §1, {@code DECLARED} and {@code KNOWN}):
     * the 32 fixed bytes alone (no interface name; the owner's address went once, in the first call the third base
     * answered).
     */
    static int referenceBytes() {
        return 32;
    }

    /** The probe of process {@code k}'s shm base, as base 0's shm base holds it. */
    private Probe shmProbe(int k) {
        return here.shm.lookup(session.require("shm" + k), "probe", Probe.class);
    }

    private RemoteBase shmBase(int k) {
        if (shmBases[k] == null) {
            shmBases[k] = here.shm.base(session.require("shm" + k));
        }
        return shmBases[k];
    }

    private RmiFixtures.RmiFactory factory(int k) throws Exception {
        if (factories[k] == null) {
            factories[k] = k == 0 ? here.rmi : RmiFixtures.decode(session.require("rmi" + k), RmiFixtures.RmiFactory.class);
        }
        return factories[k];
    }

    /** The objects list of {@code layout} over {@code b} bases, built on first use. */
    Elem objectList(Layout layout, int b) {
        String key = layout.key() + "/" + b;
        Elem head = objectLists.get(key);
        if (head == null) {
            Elem next = null;
            for (int i = elements - 1; i >= 0; i--) {
                int h = layout.home(i, elements, b);
                next = h == 0 ? new Element(i, next) : shmBase(h).create(Elem.class, Element.class, (long) i, next);
            }
            head = next;
            objectLists.put(key, head);
        }
        return head;
    }

    /** The RMI list of {@code layout} over {@code b} processes, built on first use; its head is base 0's object. */
    RmiFixtures.RmiElem rmiList(Layout layout, int b) throws Exception {
        String key = layout.key() + "/" + b;
        RmiFixtures.RmiElem head = rmiLists.get(key);
        if (head == null) {
            RmiFixtures.RmiElem next = null;
            int nextHome = -1;
            for (int i = elements - 1; i >= 0; i--) {
                int h = layout.home(i, elements, b);
                boolean nextHere = nextHome == h;
                next = factory(h).create(key, i, nextHere ? null : next, nextHere);
                nextHome = h;
            }
            head = here.rmi.local(key, 0);
            rmiLists.put(key, head);
        }
        return head;
    }
}
