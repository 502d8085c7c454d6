package dev.verbatim.transport;

import java.security.MessageDigest;
import java.time.Duration;
import java.util.Objects;

/**
 * How a connection is set up. The receive-side values ({@link #areaCount}, {@link #areaSize}) are
 * this side's receive window: the receiver dictates it and announces it to the sender at the
 * handshake (J-RPC §5.2). Immutable; start from {@link #DEFAULT} and use the {@code with*} methods.
 *
 * @param areaCount       receive areas of this side, 2 to 64. A message lies in one area; an area
 *                        is reused once every message in it was released.
 * @param areaSize        bytes per receive area, a multiple of 4096 from 64 KiB to 1 GiB. The
 *                        largest message is {@code areaSize - 24} bytes; the receive memory is
 *                        {@code areaCount * areaSize} (on {@code shm}, pages are touched only as
 *                        they are used).
 * @param sendTimeout     the longest {@link Connection#claim(int)} waits for the receiver to free
 *                        space before throwing {@link TransportException.Reason#TIMEOUT}
 * @param connectTimeout  the longest a connect or an accept handshake takes
 * @param spinNanos       how long a waiting receiver or sender spins before it parks (futex). A receiver
 *                        spins after it last received: once a {@link Connection#take} ended with
 *                        nothing, later waits park at once until a message comes.
 * @param spinOnly        latency mode: never park, spin until the deadline (burns a core; a spinner still
 *                        yields while another thread wants its core, which may be the peer it waits for:
 *                        {@code dev.verbatim.transport.spin.SpinPause})
 * @param sharedSecret    tcp only: a secret both peers must prove they hold before the connection is
 *                        handed out, or {@code null} for none (the default). See
 *                        {@link #withSharedSecret(byte[])}; the accessor returns a copy.
 * @param tls             tcp only: mutual TLS 1.3 for every connection made or accepted with these
 *                        options, or {@code null} for plaintext (the default). See {@link #withTls}.
 * @param maxConnections  a listener's limit: connections it accepted and that are not closed yet
 *                        (1024 by default). A connector over it is refused with
 *                        {@link TransportException.Reason#BUSY}. See {@link #withListenerLimits}.
 * @param handshakeTimeout a listener's deadline for one connector's whole handshake (TLS, hello,
 *                        shared secret), 5 s by default; the shorter of it and {@code connectTimeout}
 *                        applies. A connector is not bound by it (its own {@code connectTimeout} is).
 *                        Not what keeps silent sockets from locking others out (a full set of
 *                        handshakes makes room by evicting the oldest, see {@link #withListenerLimits}):
 *                        it bounds how long one can hold its slot. Short deadlines drop slow but
 *                        legitimate connectors (a cold JVM's TLS handshake on a loaded host takes
 *                        seconds).
 * @param peerTimeout     tcp only: a peer that sends nothing for this long is gone
 *                        ({@link TransportException.Reason#PEER_GONE}), 15 s by default; this side asks
 *                        the peer (in its handshake message) for a frame at least every quarter of it,
 *                        which the peer sends when it has nothing else to send (a heartbeat).
 *                        {@link Duration#ZERO}: no such check and no heartbeats asked for.
 *                        See {@link #withPeerTimeout}.
 * @param peerRecordsOnly for the layers above the transport (RPC and the object layer), which read what the
 *                        peer sends with these options' connections: materialize records only, refusing a
 *                        class a peer sends by copy (it would be built without its constructors' checks). Off by
 *                        default; the system property {@code verbatim.wire.peerRecordsOnly=true} turns it on for
 *                        every connection whatever this says. See {@link #withPeerRecordsOnly}.
 */
public record ConnectionOptions(int areaCount, int areaSize, Duration sendTimeout, Duration connectTimeout,
                                long spinNanos, boolean spinOnly, byte[] sharedSecret, TlsConfig tls,
                                int maxConnections, Duration handshakeTimeout, Duration peerTimeout,
                                boolean peerRecordsOnly) {

    public static final int MIN_AREAS = 2;
    public static final int MAX_AREAS = 64;
    public static final int MIN_AREA_SIZE = 64 * 1024;
    public static final int MAX_AREA_SIZE = 1 << 30;
    /**
     * The shortest shared secret accepted: 16 bytes (128 bits). The proof is an HMAC-SHA256, whose
     * strength is bounded by the key; a shorter secret could be guessed offline from one recorded
     * handshake. A secret derived from a password should be stretched (PBKDF2, scrypt) by the caller.
     */
    public static final int MIN_SECRET = 16;

    /** A listener's default limit of open connections. */
    public static final int DEFAULT_MAX_CONNECTIONS = 1024;
    /** A listener's default deadline for one connector's handshake. */
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(5);
    /** The default silence after which a tcp peer is gone. */
    public static final Duration DEFAULT_PEER_TIMEOUT = Duration.ofSeconds(15);
    /** The shortest non-zero {@link #peerTimeout}: heartbeats are sent every quarter of it. */
    public static final Duration MIN_PEER_TIMEOUT = Duration.ofMillis(200);

    /**
     * 8 areas of 2 MiB (messages up to 2 MiB - 24 B), 10 s send timeout, 5 s connect, spin 50 µs;
     * listeners: 1024 connections, 5 s per handshake; tcp peers silent for 15 s are gone.
     */
    public static final ConnectionOptions DEFAULT = new ConnectionOptions(
            8, 2 << 20, Duration.ofSeconds(10), Duration.ofSeconds(5), 50_000, false, null, null,
            DEFAULT_MAX_CONNECTIONS, DEFAULT_HANDSHAKE_TIMEOUT, DEFAULT_PEER_TIMEOUT, false);

    /** Options without a shared secret (the form from before secrets existed). */
    public ConnectionOptions(int areaCount, int areaSize, Duration sendTimeout, Duration connectTimeout,
                             long spinNanos, boolean spinOnly) {
        this(areaCount, areaSize, sendTimeout, connectTimeout, spinNanos, spinOnly, null, null);
    }

    /** Options without TLS (the form from before TLS existed). */
    public ConnectionOptions(int areaCount, int areaSize, Duration sendTimeout, Duration connectTimeout,
                             long spinNanos, boolean spinOnly, byte[] sharedSecret) {
        this(areaCount, areaSize, sendTimeout, connectTimeout, spinNanos, spinOnly, sharedSecret, null);
    }

    /** Options with the default listener limits and peer timeout (the form from before they existed). */
    public ConnectionOptions(int areaCount, int areaSize, Duration sendTimeout, Duration connectTimeout,
                             long spinNanos, boolean spinOnly, byte[] sharedSecret, TlsConfig tls) {
        this(areaCount, areaSize, sendTimeout, connectTimeout, spinNanos, spinOnly, sharedSecret, tls,
                DEFAULT_MAX_CONNECTIONS, DEFAULT_HANDSHAKE_TIMEOUT, DEFAULT_PEER_TIMEOUT);
    }

    /** Options that let peers send classes by copy (the form from before {@link #peerRecordsOnly} existed). */
    public ConnectionOptions(int areaCount, int areaSize, Duration sendTimeout, Duration connectTimeout,
                             long spinNanos, boolean spinOnly, byte[] sharedSecret, TlsConfig tls,
                             int maxConnections, Duration handshakeTimeout, Duration peerTimeout) {
        this(areaCount, areaSize, sendTimeout, connectTimeout, spinNanos, spinOnly, sharedSecret, tls,
                maxConnections, handshakeTimeout, peerTimeout, false);
    }

    public ConnectionOptions {
        if (areaCount < MIN_AREAS || areaCount > MAX_AREAS) {
            throw new IllegalArgumentException(
                    "areaCount must be between " + MIN_AREAS + " and " + MAX_AREAS + ": " + areaCount);
        }
        if (areaSize < MIN_AREA_SIZE || areaSize > MAX_AREA_SIZE || areaSize % 4096 != 0) {
            throw new IllegalArgumentException("areaSize must be a multiple of 4096 between "
                    + MIN_AREA_SIZE + " and " + MAX_AREA_SIZE + ": " + areaSize);
        }
        Objects.requireNonNull(sendTimeout, "sendTimeout");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        if (sendTimeout.isNegative() || connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException("timeouts must be positive: send " + sendTimeout
                    + ", connect " + connectTimeout);
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be at least 1: " + maxConnections);
        }
        Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
        Objects.requireNonNull(peerTimeout, "peerTimeout");
        if (handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
            throw new IllegalArgumentException("handshakeTimeout must be positive: " + handshakeTimeout);
        }
        if (peerTimeout.isNegative() || (!peerTimeout.isZero() && peerTimeout.compareTo(MIN_PEER_TIMEOUT) < 0)
                || peerTimeout.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("peerTimeout must be zero (off) or between " + MIN_PEER_TIMEOUT
                    + " and " + Integer.MAX_VALUE + " ms: " + peerTimeout);
        }
        if (spinNanos < 0) {
            throw new IllegalArgumentException("spinNanos must not be negative: " + spinNanos);
        }
        if (sharedSecret != null) {
            if (sharedSecret.length < MIN_SECRET) {
                throw new IllegalArgumentException("a shared secret must have at least " + MIN_SECRET
                        + " bytes: it has " + sharedSecret.length);
            }
            sharedSecret = sharedSecret.clone(); // the caller may wipe or reuse its array
        }
    }

    public ConnectionOptions withAreas(int count, int size) {
        return new ConnectionOptions(count, size, sendTimeout, connectTimeout, spinNanos, spinOnly, sharedSecret, tls,
                maxConnections, handshakeTimeout, peerTimeout, peerRecordsOnly);
    }

    public ConnectionOptions withSendTimeout(Duration timeout) {
        return new ConnectionOptions(areaCount, areaSize, timeout, connectTimeout, spinNanos, spinOnly, sharedSecret, tls,
                maxConnections, handshakeTimeout, peerTimeout, peerRecordsOnly);
    }

    public ConnectionOptions withConnectTimeout(Duration timeout) {
        return new ConnectionOptions(areaCount, areaSize, sendTimeout, timeout, spinNanos, spinOnly, sharedSecret, tls,
                maxConnections, handshakeTimeout, peerTimeout, peerRecordsOnly);
    }

    public ConnectionOptions withSpin(long nanos, boolean only) {
        return new ConnectionOptions(areaCount, areaSize, sendTimeout, connectTimeout, nanos, only, sharedSecret, tls,
                maxConnections, handshakeTimeout, peerTimeout, peerRecordsOnly);
    }

    /**
     * Requires that both ends of every tcp connection made with these options prove they hold
     * {@code secret} before the connection is handed out: a connector and a listener authenticate
     * each other once, at connection setup, by a challenge-response with fresh random nonces on
     * both sides (HMAC-SHA256; the exchange is in docs/transport.md §5.1). The secret itself never
     * crosses the network, and a recorded handshake cannot be replayed.
     *
     * <p>What it does not do: it neither encrypts nor integrity-protects the frames that follow,
     * so someone who can read or alter the traffic on the path can still read or alter the
     * messages; it keeps processes that do not know the secret from calling in (or from posing as
     * the listener). Both sides must set the same secret; if only one side has one, the connection
     * fails at once on both sides with {@link TransportException.Reason#AUTH}.
     *
     * <p>Applies to {@code tcp} only: a {@code shm:} connection ignores it, because its files and
     * rendezvous socket are owner-only, so only processes of the same user can reach it at all.
     *
     * @param secret at least {@link #MIN_SECRET} bytes, ideally 32 random ones; copied, so the
     *               caller may wipe its array afterwards
     * @throws IllegalArgumentException if {@code secret} is shorter than {@link #MIN_SECRET}
     */
    public ConnectionOptions withSharedSecret(byte[] secret) {
        Objects.requireNonNull(secret, "secret");
        return new ConnectionOptions(areaCount, areaSize, sendTimeout, connectTimeout, spinNanos, spinOnly, secret, tls,
                maxConnections, handshakeTimeout, peerTimeout, peerRecordsOnly);
    }

    /** These options with no shared secret. */
    public ConnectionOptions withoutSharedSecret() {
        return new ConnectionOptions(areaCount, areaSize, sendTimeout, connectTimeout, spinNanos, spinOnly, null, tls,
                maxConnections, handshakeTimeout, peerTimeout, peerRecordsOnly);
    }

    /**
     * Runs every tcp connection made or accepted with these options over mutual TLS 1.3 (the JDK's
     * {@code SSLEngine}): the peers check each other's certificates before the connection is handed
     * out, and every frame after is encrypted and integrity-protected, which the shared secret does
     * not do. A TLS side and a plaintext side fail at once with
     * {@link TransportException.Reason#AUTH}; so does every failed check of the handshake (unknown
     * CA, expired or not yet valid certificate, wrong host name), with a message naming it. A shared
     * secret may be set as well (it is then proved inside TLS). shm ignores it (§3.1 of
     * docs/transport.md: only processes of the same user reach a shm listener).
     */
    public ConnectionOptions withTls(TlsConfig config) {
        Objects.requireNonNull(config, "config");
        return new ConnectionOptions(areaCount, areaSize, sendTimeout, connectTimeout, spinNanos, spinOnly, sharedSecret, config,
                maxConnections, handshakeTimeout, peerTimeout, peerRecordsOnly);
    }

    /** These options without TLS. */
    public ConnectionOptions withoutTls() {
        return new ConnectionOptions(areaCount, areaSize, sendTimeout, connectTimeout, spinNanos, spinOnly, sharedSecret, null,
                maxConnections, handshakeTimeout, peerTimeout, peerRecordsOnly);
    }

    /**
     * A listener's bounds (docs/transport.md §6.1): at most {@code maxConnections} connections it
     * accepted open at once (closing one frees its place; a connector over the limit is answered with
     * a refusal it sees as {@link TransportException.Reason#BUSY}), and at most {@code handshakeTimeout}
     * (or the connect timeout, if shorter) for any one connector's handshake. When the listener's
     * 128 handshake slots are all taken, the oldest handshake of the remote address holding the most
     * is ended to make room, so sockets that say nothing cannot lock a good connector out whatever
     * the deadline. Connecting is not affected. The limit counts established connections: handshakes that finish together when it is
     * reached may exceed it by as many as are in flight (at most 128).
     */
    public ConnectionOptions withListenerLimits(int maxConnections, Duration handshakeTimeout) {
        return new ConnectionOptions(areaCount, areaSize, sendTimeout, connectTimeout, spinNanos, spinOnly, sharedSecret,
                tls, maxConnections, handshakeTimeout, peerTimeout, peerRecordsOnly);
    }

    /**
     * tcp: a peer that sends nothing for {@code timeout} is gone. This side announces the timeout in
     * its handshake message and the peer sends a heartbeat (an empty {@code NOTICE} frame) whenever it
     * has sent nothing for a quarter of it; one daemon thread per process sends them and watches for
     * silence (docs/transport.md §4.5). A peer that is stopped, dead, or cut off by the network is
     * then closed with {@link TransportException.Reason#PEER_GONE} within {@code timeout} plus one
     * quarter; a peer that is only slow (its program does not read or answer for a while) still
     * heartbeats and stays. {@link Duration#ZERO} turns it off (the handshake bytes are then those of
     * before heartbeats existed).
     */
    public ConnectionOptions withPeerTimeout(Duration timeout) {
        return new ConnectionOptions(areaCount, areaSize, sendTimeout, connectTimeout, spinNanos, spinOnly, sharedSecret,
                tls, maxConnections, handshakeTimeout, timeout, peerRecordsOnly);
    }

    /**
     * Whether the RPC and object layers refuse classes in what a peer of these connections sends by copy
     * (arguments, results, object-layer arguments): each is then materialized only if it is a record (built
     * through its canonical constructor, whose checks run) or a type that holds no class; a class anywhere in
     * the graph fails the value with a {@code WireSchemaException} naming it, which the RPC layer reports as a
     * malformed call ({@code FAIL} with {@code PROTOCOL}) or reply. A class is otherwise built through its
     * no-argument constructor with its fields then set directly, so none of its other constructors' checks run.
     * The system property {@code verbatim.wire.peerRecordsOnly=true} (an operator's floor) turns it on for
     * every node of the process, whatever the options say. The transport itself ignores it.
     */
    public ConnectionOptions withPeerRecordsOnly(boolean recordsOnly) {
        return new ConnectionOptions(areaCount, areaSize, sendTimeout, connectTimeout, spinNanos, spinOnly, sharedSecret,
                tls, maxConnections, handshakeTimeout, peerTimeout, recordsOnly);
    }

    /** A copy of the shared secret, or {@code null} if there is none. */
    @Override
    public byte[] sharedSecret() {
        return sharedSecret == null ? null : sharedSecret.clone();
    }

    /** Whether a shared secret is set (tcp connections then authenticate both peers). */
    public boolean hasSharedSecret() {
        return sharedSecret != null;
    }

    /**
     * Equal options: the secrets are compared by content, in time independent of where they
     * differ ({@link MessageDigest#isEqual}), so comparing options cannot be used to guess one.
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof ConnectionOptions other
                && areaCount == other.areaCount && areaSize == other.areaSize
                && sendTimeout.equals(other.sendTimeout) && connectTimeout.equals(other.connectTimeout)
                && spinNanos == other.spinNanos && spinOnly == other.spinOnly
                && (sharedSecret == null ? other.sharedSecret == null
                        : other.sharedSecret != null && MessageDigest.isEqual(sharedSecret, other.sharedSecret))
                && Objects.equals(tls, other.tls) && maxConnections == other.maxConnections
                && handshakeTimeout.equals(other.handshakeTimeout) && peerTimeout.equals(other.peerTimeout)
                && peerRecordsOnly == other.peerRecordsOnly;
    }

    /** Depends only on whether a secret is set, never on its bytes. */
    @Override
    public int hashCode() {
        return Objects.hash(areaCount, areaSize, sendTimeout, connectTimeout, spinNanos, spinOnly, sharedSecret != null, tls,
                maxConnections, handshakeTimeout, peerTimeout, peerRecordsOnly);
    }

    /** The options, with the secret shown only as set or not: logs and exception messages must not carry it. */
    @Override
    public String toString() {
        return "ConnectionOptions[areaCount=" + areaCount + ", areaSize=" + areaSize + ", sendTimeout=" + sendTimeout
                + ", connectTimeout=" + connectTimeout + ", spinNanos=" + spinNanos + ", spinOnly=" + spinOnly
                + ", sharedSecret=" + (sharedSecret == null ? "none" : "(set)") + ", tls=" + (tls == null ? "none" : tls) + ", maxConnections=" + maxConnections + ", handshakeTimeout="
                + handshakeTimeout + ", peerTimeout=" + peerTimeout + ", peerRecordsOnly=" + peerRecordsOnly + "]";
    }

    /** The largest message (or region) this side can receive. */
    public int maxMessageLength() {
        return areaSize - 24;
    }
}
