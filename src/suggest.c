/* "Did you mean" (src/suggest.h): the optimal string alignment distance
 * (Damerau-Levenshtein restricted to edits that do not overlap, which is what
 * a typo is) by the textbook dynamic programme over three rows of the table,
 * on the stack. Strings are measured with a bounded scan, so a hostile
 * megabyte-long name costs JL_SUGGEST_MAX + 1 reads, not a strlen. */
#include <stddef.h>

#include "src/suggest.h"

/* length of s, or JL_SUGGEST_MAX + 1 when longer than JL_SUGGEST_MAX */
static int bounded_len(const char *s) {
  int n = 0;
  while (n <= JL_SUGGEST_MAX && s[n]) n++;
  return n;
}

/* ASCII lower case; every other byte as it is (no locale) */
static unsigned char fold(char c) {
  unsigned char u = (unsigned char)c;
  return u >= 'A' && u <= 'Z' ? (unsigned char)(u - 'A' + 'a') : u;
}

static int min2(int a, int b) { return a < b ? a : b; }

int jl_suggest_distance(const char *a, const char *b) {
  if (!a || !b) return -1;
  int na = bounded_len(a), nb = bounded_len(b);
  if (na > JL_SUGGEST_MAX || nb > JL_SUGGEST_MAX) return -1;
  /* rows i-2, i-1 and i of the (na+1) x (nb+1) table; d[i][j] = distance of a[0..i) and b[0..j) */
  int rows[3][JL_SUGGEST_MAX + 1];
  int *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
  for (int j = 0; j <= nb; j++) prev[j] = j;
  for (int i = 1; i <= na; i++) {
    cur[0] = i;
    unsigned char ca = fold(a[i - 1]);
    for (int j = 1; j <= nb; j++) {
      unsigned char cb = fold(b[j - 1]);
      int d = min2(min2(prev[j] + 1, cur[j - 1] + 1), prev[j - 1] + (ca != cb));
      /* two neighbours swapped: "ab" typed for "ba" */
      if (i > 1 && j > 1 && ca == fold(b[j - 2]) && fold(a[i - 2]) == cb) d = min2(d, prev2[j - 2] + 1);
      cur[j] = d;
    }
    int *t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return prev[nb];
}

/* 1 when the n bytes of p start s, ASCII case-insensitively */
static int starts_with(const char *s, const char *p, int n) {
  for (int i = 0; i < n; i++)
    if (!s[i] || fold(s[i]) != fold(p[i])) return 0;
  return 1;
}

const char *jl_suggest(const char *typed, const char *const *candidates) {
  if (!typed || !candidates) return NULL;
  int n = bounded_len(typed);
  if (n == 0 || n > JL_SUGGEST_MAX) return NULL;
  /* the closest candidate, the earliest of equals */
  const char *best = NULL;
  int best_d = JL_SUGGEST_MAX + 1;
  for (const char *const *c = candidates; *c; c++) {
    int d = jl_suggest_distance(typed, *c);
    if (d >= 0 && d < best_d) best = *c, best_d = d;
  }
  int limit = n / 3 > 1 ? n / 3 : 1;
  if (best && best_d <= limit && best_d < n) return best;
  /* else the one candidate typed begins */
  const char *prefix = NULL;
  for (const char *const *c = candidates; *c; c++) {
    if (bounded_len(*c) > JL_SUGGEST_MAX || !starts_with(*c, typed, n)) continue;
    if (prefix) return NULL; /* two: typed says too little to choose */
    prefix = *c;
  }
  return prefix;
}
