package dev.verbatim.transport;

/**
 * A snapshot of a connection's counters. Counters are cumulative since the connection opened;
 * {@code held*} are the current state of the receive side.
 *
 * @param messagesSent      messages committed (regions not counted)
 * @param bytesSent         payload bytes committed, regions included
 * @param messagesReceived  messages delivered
 * @param bytesReceived     message payload bytes delivered (regions not included)
 * @param regionsSent       one-sided writes issued
 * @param backPressured     times a claim found no free receive area at the peer
 * @param parks             times a waiting thread of this side parked (went to sleep)
 * @param heldMessages      deliveries retained and not yet released
 * @param heldBytes         bytes of those deliveries (payload and regions)
 * @param heldAreas         receive areas that cannot be reused yet because a delivery holds them
 * @param areaCount         this side's receive areas
 * @param areaSize          bytes per receive area
 */
public record ConnectionStats(long messagesSent, long bytesSent, long messagesReceived, long bytesReceived,
                              long regionsSent, long backPressured, long parks,
                              long heldMessages, long heldBytes, int heldAreas, int areaCount, int areaSize) {
}
