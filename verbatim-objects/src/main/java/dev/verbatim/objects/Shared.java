package dev.verbatim.objects;

import dev.verbatim.rpc.Remote;
import dev.verbatim.wire.ByReference;

/**
 * Marks an interface whose implementations are <em>shared objects</em>: passed to another base (as an
 * argument or result of a call on a shared object, or of a remote construction) they cross by reference,
 * and everything else crosses by copy, as in RPC.
 *
 * <p>Why a marker interface (rather than an annotation or a registration): a Java proxy can only
 * implement interfaces, so what a reference offers on the receiving base is exactly the object's
 * interfaces that extend {@code Shared}, and nothing else of its class (fields, class methods, final
 * methods): the marker names that contract in the type system, where the compiler checks it. It also
 * makes "is this shared?" one {@code instanceof}, decided by the type a value has, with no table to
 * consult and no way for a class to be shared on one base and copied on another. It extends RPC's
 * {@link Remote}, so a shared interface is also a valid RPC interface (its method ids are RPC's).
 *
 * <p>A shared interface is public (a name on the wire is resolved only to a public interface extending
 * this one). A value passed by copy may hold shared objects (a record component or class field, an element
 * of an array or list, a value of a map, declared as a shared interface): they cross by reference too, with
 * the same identity and weights. That is what extending the wire format's {@link ByReference} says: the
 * wire format writes such a field as a slot of a table that travels beside the message, which this layer
 * fills and reads (docs/objects.md §1).
 */
public interface Shared extends Remote, ByReference {
}
