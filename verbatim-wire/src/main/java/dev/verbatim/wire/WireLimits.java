package dev.verbatim.wire;

/**
 * Limits the validator enforces before it trusts a message. Every limit is checked with {@code long}
 * arithmetic before any allocation or read that depends on it.
 *
 * <p>There is no depth limit: nothing in Verbatim recurses on the depth of the data (writer, validator,
 * views and materializer all iterate), so a million-element linked list is as safe as a flat one.
 *
 * @param maxMessageBytes largest message accepted, at most {@link MessageDescriptor#MAX_MESSAGE_BYTES}
 * @param maxObjects      most objects in one message
 * @param maxTypes        most distinct types in one message's type table
 * @param maxDescriptorChars longest type descriptor accepted by a {@link TypeDictionary}
 * @param recordsOnly     materialize records only: a class (built through its no-argument constructor with its
 *                        fields then set directly, so none of its constructors' checks run) met while materializing
 *                        a message is refused with a {@link WireSchemaException} naming it. Records are always built
 *                        through their canonical constructor, whose checks run. For what arrives from peers one may
 *                        not trust: {@link #forPeers()}.
 */
public record WireLimits(long maxMessageBytes, int maxObjects, int maxTypes, int maxDescriptorChars, boolean recordsOnly) {

    /** 256 MiB, 16 Mi objects, 4096 types, 64 KiB descriptors; classes materialized too. */
    public static final WireLimits DEFAULT = new WireLimits(256L << 20, 1 << 24, 4096, 1 << 16);

    /** The system property that makes {@link #forPeers()} materialize records only: {@code -Dverbatim.wire.peerRecordsOnly=true}. */
    public static final String PEER_RECORDS_ONLY_PROPERTY = "verbatim.wire.peerRecordsOnly";

    /** Limits with classes materialized too ({@code recordsOnly} false). */
    public WireLimits(long maxMessageBytes, int maxObjects, int maxTypes, int maxDescriptorChars) {
        this(maxMessageBytes, maxObjects, maxTypes, maxDescriptorChars, false);
    }

    /**
     * The limits for messages that arrive from a peer (what the RPC and object layers validate calls and replies
     * with): {@link #DEFAULT}, with {@link #recordsOnly()} if the system property {@value #PEER_RECORDS_ONLY_PROPERTY}
     * is {@code true} when this is called. Stored files and messages a program validates itself are not affected.
     */
    public static WireLimits forPeers() {
        return forPeers(false);
    }

    /**
     * The limits for messages from the peers of one node or connection that asks for records only or not
     * ({@code ConnectionOptions.peerRecordsOnly} in the transport): {@link #DEFAULT}, with {@link #recordsOnly()} if
     * {@code recordsOnly} is true or the system property {@value #PEER_RECORDS_ONLY_PROPERTY} is {@code true} when
     * this is called (the property is a floor for the whole process: options cannot lift it).
     */
    public static WireLimits forPeers(boolean recordsOnly) {
        return DEFAULT.withRecordsOnly(recordsOnly || Boolean.getBoolean(PEER_RECORDS_ONLY_PROPERTY));
    }

    public WireLimits {
        if (maxMessageBytes < MessageDescriptor.HEADER_LENGTH || maxMessageBytes > MessageDescriptor.MAX_MESSAGE_BYTES) {
            throw new IllegalArgumentException("maxMessageBytes must be in [" + MessageDescriptor.HEADER_LENGTH + ", "
                    + MessageDescriptor.MAX_MESSAGE_BYTES + "]: " + maxMessageBytes);
        }
        if (maxObjects < 0) throw new IllegalArgumentException("maxObjects must be >= 0: " + maxObjects);
        if (maxTypes < 0 || maxTypes > MessageDescriptor.MAX_TYPES) {
            throw new IllegalArgumentException("maxTypes must be in [0, " + MessageDescriptor.MAX_TYPES + "]: " + maxTypes);
        }
        if (maxDescriptorChars < 16) throw new IllegalArgumentException("maxDescriptorChars must be >= 16: " + maxDescriptorChars);
    }

    public WireLimits withMaxMessageBytes(long v) { return new WireLimits(v, maxObjects, maxTypes, maxDescriptorChars, recordsOnly); }
    public WireLimits withMaxObjects(int v) { return new WireLimits(maxMessageBytes, v, maxTypes, maxDescriptorChars, recordsOnly); }
    public WireLimits withMaxTypes(int v) { return new WireLimits(maxMessageBytes, maxObjects, v, maxDescriptorChars, recordsOnly); }
    public WireLimits withRecordsOnly(boolean v) { return new WireLimits(maxMessageBytes, maxObjects, maxTypes, maxDescriptorChars, v); }
}
