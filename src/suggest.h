/* "Did you mean": the closest of a list of names to a mistyped one, for the
 * messages about unknown commands and options (src/cli/) and unknown scene
 * keys (src/scene_json.c).
 *
 * Distance is the optimal string alignment form of Damerau-Levenshtein
 * (insertions, deletions, substitutions and swaps of two neighbouring
 * characters each cost 1; Damerau 1964), compared ASCII case-insensitively
 * byte by byte (other bytes, UTF-8 included, compare as they are). A name
 * within max(1, n/3) edits of the n bytes typed, and sharing at least one
 * character with it (distance < n), is suggested; failing that, the one name
 * the typed text is a prefix of. Ties go to the earliest name in the list.
 * No allocation: two strings of at most JL_SUGGEST_MAX bytes are compared
 * in a table on the stack; longer ones are never suggested or matched. */
#ifndef JL_SRC_SUGGEST_H
#define JL_SRC_SUGGEST_H

/* bytes compared at most; a longer typed text gets no suggestion, a longer candidate is skipped */
enum { JL_SUGGEST_MAX = 64 };

/* The edit distance between a and b (above), or -1 when either is NULL or
 * longer than JL_SUGGEST_MAX bytes. */
int jl_suggest_distance(const char *a, const char *b);

/* The entry of `candidates` (a NULL-terminated array; NULL entries end it,
 * so NULL itself is an empty list) closest to `typed` by the rule above,
 * or NULL when none is close enough, typed is NULL or empty, or typed is
 * longer than JL_SUGGEST_MAX bytes. Returns one of the candidate pointers,
 * never a copy. */
const char *jl_suggest(const char *typed, const char *const *candidates);

#endif
