/* jelly._jelly: the CPython binding of Jelly's public C API (<jelly/jelly.h>
 * only; it is a program of the library, like src/cli, and holds no physics).
 * The pure-Python package src/python/jelly/__init__.py builds the friendly
 * API (scene dicts, bodies, stats, sweeps) on these two types:
 *
 *   Model(json_text, name)   jelly_model_load_json; a bad scene raises
 *                            SceneError with the library's message, which
 *                            names the key path (bodies[0].young_modulus).
 *   World(model)             jelly_world_new; stepping releases the GIL.
 *
 * Stepping releases the GIL and, at least every 50 ms, takes it back to
 * look at signals: a Ctrl-C raises KeyboardInterrupt with the world at its
 * last whole step. World.render uses the renderer (render/render_api.c)
 * when the module is built with it.
 *
 * Positions and velocities are NumPy views of the world's own arrays
 * (read-only, no copy): the array's base object is the World, so a view
 * keeps its world alive and can never point at freed memory. A World is used
 * by one thread at a time (the C API's rule); a second thread that calls it
 * while it steps gets RuntimeError instead of a data race. Every argument is
 * checked here or by the library: hostile input raises, never crashes. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <jelly/jelly.h>
#include <stdatomic.h>
#include <time.h>
#ifdef JELLY_RENDER
#include <jelly/jelly_render.h> /* World.render: the headless renderer */
#endif

#define ERRSZ 1024
/* s: the longest a stepping call goes without looking at signals (Ctrl-C) and cancel() */
#define JL_PY_CHECK_EVERY 0.05

static PyObject *SceneError;      /* a bad scene, mesh or surface (JELLY_ERR_INPUT while loading) */
static PyObject *SimulationError; /* the simulation diverged (JELLY_ERR_RUNTIME) */

/* Raises the exception that fits a JellyResult; `load` marks model building,
 * where input errors are the scene's. */
static PyObject *raise_result(JellyResult r, const char *err, int load) {
  PyObject *type = PyExc_ValueError;
  if (r == JELLY_ERR_RUNTIME)
    type = SimulationError;
  else if (r == JELLY_ERR_SYSTEM)
    type = PyExc_OSError;
  else if (load)
    type = SceneError;
  PyErr_SetString(type, err && err[0] ? err : "jelly: unknown error");
  return NULL;
}

/* ---- Model ----------------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD JellyModel *model;
} ModelObject;

static void Model_dealloc(ModelObject *self) {
  jelly_model_free(self->model); /* worlds keep the engine model alive (C API) */
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Model_init(ModelObject *self, PyObject *args, PyObject *kwds) {
  static char *kw[] = {"json_text", "name", NULL};
  const char *text, *name;
  Py_ssize_t len;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "s#s", kw, &text, &len, &name)) return -1;
  if ((Py_ssize_t)strlen(text) != len) {
    PyErr_SetString(SceneError, "scene text contains a NUL character");
    return -1;
  }
  if (self->model) {
    PyErr_SetString(PyExc_RuntimeError, "Model is already initialized");
    return -1;
  }
  char err[ERRSZ] = "";
  JellyModel *m = NULL;
  JellyResult r;
  /* with the GIL held: loading forks the mesh importer and TetGen, which the
   * C API allows from one thread at a time (jelly.h, "Threads") */
  r = jelly_model_load_json(text, name, &m, err, sizeof err);
  if (r) {
    raise_result(r, err, 1);
    return -1;
  }
  self->model = m;
  return 0;
}

static PyObject *Model_body_count(ModelObject *self, PyObject *Py_UNUSED(ignored)) {
  return PyLong_FromLong(jelly_model_body_count(self->model));
}

static PyMethodDef Model_methods[] = {{"body_count", (PyCFunction)Model_body_count, METH_NOARGS, "Number of bodies."},
                                      {NULL, NULL, 0, NULL}};

static PyTypeObject ModelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "jelly._jelly.Model",
    .tp_basicsize = sizeof(ModelObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, /* jelly.Model adds the scene text */
    .tp_doc = "Model(json_text, name): a scene built once (jelly_model_load_json); worlds share it.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Model_init,
    .tp_dealloc = (destructor)Model_dealloc,
    .tp_methods = Model_methods,
};

/* ---- World ----------------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD JellyWorld *world;
  int busy;          /* a call has released the GIL on this world (one thread at a time) */
  atomic_int cancel; /* cancel(): the stepping call under way stops at its next step */
} WorldObject;

static void World_dealloc(WorldObject *self) {
  jelly_world_free(self->world);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static int World_init(WorldObject *self, PyObject *args, PyObject *kwds) {
  static char *kw[] = {"model", NULL};
  ModelObject *model;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!", kw, &ModelType, &model)) return -1;
  if (self->world) {
    PyErr_SetString(PyExc_RuntimeError, "World is already initialized");
    return -1;
  }
  if (!model->model) {
    PyErr_SetString(PyExc_ValueError, "Model is not initialized");
    return -1;
  }
  char err[ERRSZ] = "";
  JellyResult r = jelly_world_new(model->model, &self->world, err, sizeof err);
  if (r) {
    raise_result(r, err, 1);
    return -1;
  }
  return 0;
}

/* The world, or NULL with an exception when it is not usable now. */
static JellyWorld *usable(WorldObject *self) {
  if (!self->world) {
    PyErr_SetString(PyExc_ValueError, "World is not initialized");
    return NULL;
  }
  if (self->busy) {
    PyErr_SetString(PyExc_RuntimeError, "this World is being stepped by another thread (one thread per world)");
    return NULL;
  }
  return self->world;
}

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* n steps of h (s) each, without the GIL; every step, or at most every JL_PY_CHECK_EVERY s, with the GIL
 * again to look at signals (a Ctrl-C raises KeyboardInterrupt there) and at cancel() (KeyboardInterrupt
 * too). The world is then at the end of its last whole step, usable. */
static PyObject *steps(WorldObject *self, JellyWorld *w, long long n, double h) {
  char err[ERRSZ] = "";
  JellyResult r = JELLY_OK;
  long long k = 0;
  self->busy = 1;
  while (k < n && r == JELLY_OK) {
    PyThreadState *ts = PyEval_SaveThread(); /* other Python threads run while this one steps */
    double t0 = seconds_now();
    do {
      r = jelly_world_step(w, h, err, sizeof err);
      k++;
    } while (k < n && r == JELLY_OK && seconds_now() - t0 < JL_PY_CHECK_EVERY && !atomic_load(&self->cancel));
    PyEval_RestoreThread(ts);
    if (r != JELLY_OK) break;
    if (atomic_exchange(&self->cancel, 0)) {
      self->busy = 0;
      PyErr_SetString(PyExc_KeyboardInterrupt, "the World was cancelled (cancel()) while stepping");
      return NULL;
    }
    if (k < n && PyErr_CheckSignals() < 0) { /* a Ctrl-C: KeyboardInterrupt, the world at its last step */
      self->busy = 0;
      return NULL;
    }
  }
  self->busy = 0;
  if (r) return raise_result(r, err, 0);
  Py_RETURN_NONE;
}

/* step(n): n whole steps of the model's dt */
static PyObject *World_step(WorldObject *self, PyObject *args) {
  long long n;
  if (!PyArg_ParseTuple(args, "L", &n)) return NULL;
  JellyWorld *w = usable(self);
  if (!w) return NULL;
  if (n < 0 || n > 1000000000LL) {
    PyErr_SetString(PyExc_ValueError, "step: n must be between 0 and 1e9 steps");
    return NULL;
  }
  return steps(self, w, n, jelly_world_dt(w));
}

/* advance(seconds): what jelly_world_step(seconds) does, one step at a time (bitwise the same) */
static PyObject *World_advance(WorldObject *self, PyObject *args) {
  double seconds;
  if (!PyArg_ParseTuple(args, "d", &seconds)) return NULL;
  JellyWorld *w = usable(self);
  if (!w) return NULL;
  long n = jelly_world_step_count(w, seconds);
  if (n <= 0) {
    PyErr_SetString(PyExc_ValueError, "advance: seconds must be > 0 and at most 1e6 (and at most 1e9 steps)");
    return NULL;
  }
  return steps(self, w, n, seconds / (double)n);
}

static PyObject *World_cancel(WorldObject *self, PyObject *Py_UNUSED(ignored)) {
  atomic_store(&self->cancel, 1);
  Py_RETURN_NONE;
}

/* A read-only (nnode, 3) float64 view of the world's array, based on the World. */
static PyObject *view(WorldObject *self, const double *data) {
  JellyWorld *w = usable(self);
  if (!w) return NULL;
  npy_intp dims[2] = {jelly_world_node_count(w), 3};
  PyObject *a = PyArray_New(&PyArray_Type, 2, dims, NPY_FLOAT64, NULL, (void *)data, 0, NPY_ARRAY_CARRAY_RO, NULL);
  if (!a) return NULL;
  Py_INCREF(self);
  if (PyArray_SetBaseObject((PyArrayObject *)a, (PyObject *)self) < 0) {
    Py_DECREF(a);
    return NULL;
  }
  return a;
}

static PyObject *World_positions(WorldObject *self, void *Py_UNUSED(c)) {
  return view(self, jelly_world_positions(self->world)); /* view raises for an unusable world */
}

static PyObject *World_velocities(WorldObject *self, void *Py_UNUSED(c)) {
  return view(self, jelly_world_velocities(self->world));
}

static PyObject *World_time(WorldObject *self, void *Py_UNUSED(c)) {
  JellyWorld *w = usable(self);
  return w ? PyFloat_FromDouble(jelly_world_time(w)) : NULL;
}

static PyObject *World_dt(WorldObject *self, void *Py_UNUSED(c)) {
  JellyWorld *w = usable(self);
  return w ? PyFloat_FromDouble(jelly_world_dt(w)) : NULL;
}

static PyObject *World_node_count(WorldObject *self, void *Py_UNUSED(c)) {
  JellyWorld *w = usable(self);
  return w ? PyLong_FromLong(jelly_world_node_count(w)) : NULL;
}

static PyObject *World_body_count(WorldObject *self, void *Py_UNUSED(c)) {
  JellyWorld *w = usable(self);
  return w ? PyLong_FromLong(jelly_world_body_count(w)) : NULL;
}

/* pin(nodes, on): jelly_world_pin for each node (any integer array-like) */
static PyObject *World_pin(WorldObject *self, PyObject *args) {
  PyObject *nodes;
  int on;
  if (!PyArg_ParseTuple(args, "Op", &nodes, &on)) return NULL;
  JellyWorld *w = usable(self);
  if (!w) return NULL;
  PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(nodes, NPY_INTP, 0, 1, NPY_ARRAY_CARRAY);
  if (!a) return NULL;
  const npy_intp *idx = (const npy_intp *)PyArray_DATA(a);
  npy_intp n = PyArray_SIZE(a);
  char err[ERRSZ] = "";
  for (npy_intp i = 0; i < n; i++) {
    if (idx[i] < 0 || idx[i] > 0x7fffffff) {
      Py_DECREF(a);
      return PyErr_Format(PyExc_IndexError, "pin: node %zd out of range [0, %d)", (Py_ssize_t)idx[i],
                          jelly_world_node_count(w));
    }
    JellyResult r = jelly_world_pin(w, (int)idx[i], on, err, sizeof err);
    if (r) {
      Py_DECREF(a);
      PyErr_SetString(PyExc_IndexError, err);
      return NULL;
    }
  }
  Py_DECREF(a);
  Py_RETURN_NONE;
}

/* set_force(nodes, forces): forces is (n, 3) float64 for the n nodes */
static PyObject *World_set_force(WorldObject *self, PyObject *args) {
  PyObject *nodes, *forces;
  if (!PyArg_ParseTuple(args, "OO", &nodes, &forces)) return NULL;
  JellyWorld *w = usable(self);
  if (!w) return NULL;
  PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(nodes, NPY_INTP, 1, 1, NPY_ARRAY_CARRAY);
  if (!a) return NULL;
  PyArrayObject *f = (PyArrayObject *)PyArray_FROMANY(forces, NPY_FLOAT64, 2, 2, NPY_ARRAY_CARRAY);
  if (!f) {
    Py_DECREF(a);
    return NULL;
  }
  npy_intp n = PyArray_SIZE(a);
  if (PyArray_DIM(f, 0) != n || PyArray_DIM(f, 1) != 3) {
    Py_DECREF(a);
    Py_DECREF(f);
    PyErr_SetString(PyExc_ValueError, "set_force: forces must have shape (len(nodes), 3)");
    return NULL;
  }
  const npy_intp *idx = (const npy_intp *)PyArray_DATA(a);
  const double *fv = (const double *)PyArray_DATA(f);
  char err[ERRSZ] = "";
  PyObject *ret = Py_None;
  for (npy_intp i = 0; i < n; i++) {
    if (idx[i] < 0 || idx[i] > 0x7fffffff) {
      PyErr_Format(PyExc_IndexError, "set_force: node %zd out of range [0, %d)", (Py_ssize_t)idx[i],
                   jelly_world_node_count(w));
      ret = NULL;
      break;
    }
    JellyResult r = jelly_world_set_force(w, (int)idx[i], fv + 3 * i, err, sizeof err);
    if (r) {
      PyErr_SetString(PyExc_ValueError, err);
      ret = NULL;
      break;
    }
  }
  Py_DECREF(a);
  Py_DECREF(f);
  Py_XINCREF(ret);
  return ret;
}

/* set_positions(array) / set_velocities(array): (nnode, 3) float64, checked by the library */
static PyObject *set_nodes(WorldObject *self, PyObject *args,
                           JellyResult (*call)(JellyWorld *, const double *, int, char *, size_t)) {
  PyObject *o;
  if (!PyArg_ParseTuple(args, "O", &o)) return NULL;
  JellyWorld *w = usable(self);
  if (!w) return NULL;
  PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(o, NPY_FLOAT64, 2, 2, NPY_ARRAY_CARRAY);
  if (!a) return NULL;
  if (PyArray_DIM(a, 1) != 3 || PyArray_DIM(a, 0) > 0x7fffffff) {
    Py_DECREF(a);
    PyErr_SetString(PyExc_ValueError, "the array must have shape (node_count, 3)");
    return NULL;
  }
  char err[ERRSZ] = "";
  JellyResult r = call(w, (const double *)PyArray_DATA(a), (int)PyArray_DIM(a, 0), err, sizeof err);
  Py_DECREF(a);
  if (r) {
    PyErr_SetString(PyExc_ValueError, err);
    return NULL;
  }
  Py_RETURN_NONE;
}
static PyObject *World_set_positions(WorldObject *self, PyObject *args) {
  return set_nodes(self, args, jelly_world_set_positions);
}
static PyObject *World_set_velocities(WorldObject *self, PyObject *args) {
  return set_nodes(self, args, jelly_world_set_velocities);
}

/* three or nine doubles of a sequence (None: NULL) into out; 0 with TypeError/ValueError */
static int doubles(PyObject *o, int n, double *out, const double **ptr, const char *what) {
  if (o == Py_None) {
    *ptr = NULL;
    return 1;
  }
  PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(o, NPY_FLOAT64, 1, 2, NPY_ARRAY_CARRAY);
  if (!a) return 0;
  if (PyArray_SIZE(a) != n) {
    Py_DECREF(a);
    PyErr_Format(PyExc_ValueError, "%s must have %d numbers", what, n);
    return 0;
  }
  memcpy(out, PyArray_DATA(a), (size_t)n * sizeof(double));
  Py_DECREF(a);
  *ptr = out;
  return 1;
}

/* set_body_pose(body, translation or None, rotation (3, 3) or None) */
static PyObject *World_set_body_pose(WorldObject *self, PyObject *args) {
  int body;
  PyObject *to, *ro;
  if (!PyArg_ParseTuple(args, "iOO", &body, &to, &ro)) return NULL;
  JellyWorld *w = usable(self);
  if (!w) return NULL;
  double t[3], R[9];
  const double *tp, *rp;
  if (!doubles(to, 3, t, &tp, "translation") || !doubles(ro, 9, R, &rp, "rotation")) return NULL;
  char err[ERRSZ] = "";
  if (jelly_world_set_body_pose(w, body, tp, rp, err, sizeof err)) {
    PyErr_SetString(PyExc_ValueError, err);
    return NULL;
  }
  Py_RETURN_NONE;
}

/* set_body_velocity(body, linear or None, angular or None) */
static PyObject *World_set_body_velocity(WorldObject *self, PyObject *args) {
  int body;
  PyObject *lo, *ao;
  if (!PyArg_ParseTuple(args, "iOO", &body, &lo, &ao)) return NULL;
  JellyWorld *w = usable(self);
  if (!w) return NULL;
  double l[3], a[3];
  const double *lp, *ap;
  if (!doubles(lo, 3, l, &lp, "linear") || !doubles(ao, 3, a, &ap, "angular")) return NULL;
  char err[ERRSZ] = "";
  if (jelly_world_set_body_velocity(w, body, lp, ap, err, sizeof err)) {
    PyErr_SetString(PyExc_ValueError, err);
    return NULL;
  }
  Py_RETURN_NONE;
}

/* render(width, height, camera (6,) or None, layers) -> (height, width, 3) uint8 */
static PyObject *World_render(WorldObject *self, PyObject *args) {
  int width, height;
  unsigned int layers;
  PyObject *co;
  if (!PyArg_ParseTuple(args, "iiOI", &width, &height, &co, &layers)) return NULL;
  JellyWorld *w = usable(self);
  if (!w) return NULL;
#ifdef JELLY_RENDER
  double cam[6];
  const double *cp;
  if (!doubles(co, 6, cam, &cp, "camera (eye x, y, z, target x, y, z)")) return NULL;
  if (width < 16 || width > 16384 || height < 16 || height > 16384) {
    PyErr_Format(PyExc_ValueError, "render: width and height must be from 16 to 16384 pixels, got %dx%d", width,
                 height);
    return NULL;
  }
  npy_intp dims[3] = {height, width, 3};
  PyObject *img = PyArray_SimpleNew(3, dims, NPY_UINT8);
  if (!img) return NULL;
  char err[ERRSZ] = "";
  self->busy = 1;
  JellyResult r = jelly_world_render(w, width, height, cp, layers, (unsigned char *)PyArray_DATA((PyArrayObject *)img),
                                     err, sizeof err);
  self->busy = 0;
  if (r) {
    Py_DECREF(img);
    PyErr_SetString(r == JELLY_ERR_INPUT ? PyExc_ValueError : PyExc_RuntimeError, err);
    return NULL;
  }
  return img;
#else
  (void)width, (void)height, (void)co, (void)layers;
  PyErr_SetString(PyExc_RuntimeError, "render: this jelly was built without the renderer (SDL2 and cglm)");
  return NULL;
#endif
}

/* body_info(i) -> (name, first_node, node_count, mass, vertex_count, triangle_count) */
static PyObject *World_body_info(WorldObject *self, PyObject *args) {
  int b;
  if (!PyArg_ParseTuple(args, "i", &b)) return NULL;
  JellyWorld *w = usable(self);
  if (!w) return NULL;
  JellyBodyInfo bi;
  char err[ERRSZ] = "";
  if (jelly_world_body_info(w, b, &bi, err, sizeof err)) {
    PyErr_SetString(PyExc_IndexError, err);
    return NULL;
  }
  return Py_BuildValue("(siidii)", bi.name, bi.first_node, bi.node_count, bi.mass, bi.vertex_count, bi.triangle_count);
}

/* body_surface(i) -> (vertices (nv, 3) float64, triangles (nt, 3) int32), copies
 * (the world's buffers change at the next call) */
static PyObject *World_body_surface(WorldObject *self, PyObject *args) {
  int b;
  if (!PyArg_ParseTuple(args, "i", &b)) return NULL;
  JellyWorld *w = usable(self);
  if (!w) return NULL;
  const double *v;
  const int *t;
  int nv, nt;
  char err[ERRSZ] = "";
  if (jelly_world_body_surface(w, b, &v, &nv, &t, &nt, err, sizeof err)) {
    PyErr_SetString(PyExc_IndexError, err);
    return NULL;
  }
  npy_intp dv[2] = {nv, 3}, dt[2] = {nt, 3};
  PyObject *va = PyArray_SimpleNew(2, dv, NPY_FLOAT64);
  PyObject *ta = PyArray_SimpleNew(2, dt, NPY_INT32);
  if (!va || !ta) {
    Py_XDECREF(va);
    Py_XDECREF(ta);
    return NULL;
  }
  if (nv > 0) memcpy(PyArray_DATA((PyArrayObject *)va), v, sizeof(double) * 3 * (size_t)nv);
  if (nt > 0) memcpy(PyArray_DATA((PyArrayObject *)ta), t, sizeof(int) * 3 * (size_t)nt);
  return Py_BuildValue("(NN)", va, ta);
}

static PyObject *World_energy(WorldObject *self, PyObject *Py_UNUSED(ignored)) {
  JellyWorld *w = usable(self);
  if (!w) return NULL;
  JellyEnergies e;
  char err[ERRSZ] = "";
  JellyResult r = jelly_world_energies(w, &e, err, sizeof err);
  if (r) return raise_result(r, err, 0);
  return Py_BuildValue("{sdsdsdsdsdsd}", "kinetic", e.kinetic, "elastic", e.elastic, "gravity", e.gravity, "contact",
                       e.contact, "external", e.external, "total", e.total);
}

/* warnings() -> {"solver_cap": (count, first_time, first), ..., "steps", "diverged", "inverted_tets"} */
static PyObject *World_warnings(WorldObject *self, PyObject *Py_UNUSED(ignored)) {
  JellyWorld *w = usable(self);
  if (!w) return NULL;
  JellyWarnings wr;
  char err[ERRSZ] = "";
  JellyResult r = jelly_world_warnings(w, &wr, err, sizeof err);
  if (r) return raise_result(r, err, 0);
  PyObject *d = PyDict_New();
  if (!d) return NULL;
  for (int k = 0; k < JELLY_WARN_COUNT; k++) {
    PyObject *t = Py_BuildValue("(lds)", wr.count[k], wr.first_time[k], wr.first[k]);
    if (!t || PyDict_SetItemString(d, jelly_warning_name((JellyWarningKind)k), t) < 0) {
      Py_XDECREF(t);
      Py_DECREF(d);
      return NULL;
    }
    Py_DECREF(t);
  }
  PyObject *s = Py_BuildValue("(lli)", wr.steps, wr.diverged, wr.inverted_tets);
  if (!s || PyDict_SetItemString(d, "_counters", s) < 0) {
    Py_XDECREF(s);
    Py_DECREF(d);
    return NULL;
  }
  Py_DECREF(s);
  return d;
}

/* stats(reset) -> the stats.csv columns of jelly_world_stats (frame and wall_ms are the caller's) */
static PyObject *World_stats(WorldObject *self, PyObject *args) {
  int reset;
  if (!PyArg_ParseTuple(args, "p", &reset)) return NULL;
  JellyWorld *w = usable(self);
  if (!w) return NULL;
  JellyStats st;
  char err[ERRSZ] = "";
  JellyResult r = jelly_world_stats(w, reset, &st, err, sizeof err);
  if (r) return raise_result(r, err, 0);
  return Py_BuildValue("{sdslslsdsdsdsdsdsisdslsislsl}", "time", st.time, "steps", st.steps, "cg_iterations",
                       st.cg_iterations, "kinetic_energy", st.kinetic_energy, "elastic_energy", st.elastic_energy,
                       "gravity_energy", st.gravity_energy, "max_strain", st.max_strain, "min_y", st.min_y, "contacts",
                       st.contacts, "contact_energy", st.contact_energy, "cg_failed", st.cg_failed, "inverted_tets",
                       st.inverted_tets, "energy_splits", st.energy_splits, "crossing_splits", st.crossing_splits);
}

/* save(path) / load(path): the checkpoint files of jelly_world_save/load */
typedef JellyResult (*PathCall)(JellyWorld *, const char *, char *, size_t);

static PyObject *world_path_call(WorldObject *self, PyObject *args, PathCall call) {
  PyObject *path;
  if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path)) return NULL;
  JellyWorld *w = usable(self);
  if (!w) {
    Py_DECREF(path);
    return NULL;
  }
  char err[ERRSZ] = "";
  JellyResult r = call(w, PyBytes_AS_STRING(path), err, sizeof err);
  Py_DECREF(path);
  if (r) return raise_result(r, err, 0);
  Py_RETURN_NONE;
}

static JellyResult save_call(JellyWorld *w, const char *path, char *err, size_t errsz) {
  return jelly_world_save(w, path, err, errsz);
}

static PyObject *World_save(WorldObject *self, PyObject *args) { return world_path_call(self, args, save_call); }
static PyObject *World_load(WorldObject *self, PyObject *args) { return world_path_call(self, args, jelly_world_load); }

/* copy_state_from(other): jelly_world_copy_state(self, other) */
static PyObject *World_copy_state_from(WorldObject *self, PyObject *args);

static PyMethodDef World_methods[] = {
    {"step", (PyCFunction)World_step, METH_VARARGS, "step(n): n steps of dt; releases the GIL."},
    {"advance", (PyCFunction)World_advance, METH_VARARGS, "advance(seconds): jelly_world_step; releases the GIL."},
    {"pin", (PyCFunction)World_pin, METH_VARARGS, "pin(nodes, on)"},
    {"set_force", (PyCFunction)World_set_force, METH_VARARGS, "set_force(nodes, forces (n, 3))"},
    {"body_info", (PyCFunction)World_body_info, METH_VARARGS, "body_info(i) -> tuple"},
    {"body_surface", (PyCFunction)World_body_surface, METH_VARARGS, "body_surface(i) -> (vertices, triangles)"},
    {"energy", (PyCFunction)World_energy, METH_NOARGS, "energy() -> dict (J)"},
    {"warnings", (PyCFunction)World_warnings, METH_NOARGS, "warnings() -> dict"},
    {"stats", (PyCFunction)World_stats, METH_VARARGS, "stats(reset) -> dict (jelly_world_stats)"},
    {"save", (PyCFunction)World_save, METH_VARARGS, "save(path): checkpoint file"},
    {"load", (PyCFunction)World_load, METH_VARARGS, "load(path): checkpoint file"},
    {"copy_state_from", (PyCFunction)World_copy_state_from, METH_VARARGS, "copy_state_from(world)"},
    {"cancel", (PyCFunction)World_cancel, METH_NOARGS, "cancel(): the stepping call under way (or the next) stops"},
    {"set_positions", (PyCFunction)World_set_positions, METH_VARARGS, "set_positions((nnode, 3) array)"},
    {"set_velocities", (PyCFunction)World_set_velocities, METH_VARARGS, "set_velocities((nnode, 3) array)"},
    {"set_body_pose", (PyCFunction)World_set_body_pose, METH_VARARGS, "set_body_pose(body, translation, rotation)"},
    {"set_body_velocity", (PyCFunction)World_set_body_velocity, METH_VARARGS,
     "set_body_velocity(body, linear, angular)"},
    {"render", (PyCFunction)World_render, METH_VARARGS, "render(width, height, camera, layers) -> uint8 array"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef World_getset[] = {
    {"positions", (getter)World_positions, NULL, "read-only (nnode, 3) view, m", NULL},
    {"velocities", (getter)World_velocities, NULL, "read-only (nnode, 3) view, m/s", NULL},
    {"time", (getter)World_time, NULL, "simulated time, s", NULL},
    {"dt", (getter)World_dt, NULL, "the model's step, s", NULL},
    {"node_count", (getter)World_node_count, NULL, "nodes over all bodies", NULL},
    {"body_count", (getter)World_body_count, NULL, "bodies", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject WorldType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "jelly._jelly.World",
    .tp_basicsize = sizeof(WorldObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "World(model): one simulation of a Model (jelly_world_new).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)World_init,
    .tp_dealloc = (destructor)World_dealloc,
    .tp_methods = World_methods,
    .tp_getset = World_getset,
};

static PyObject *World_copy_state_from(WorldObject *self, PyObject *args) {
  WorldObject *src;
  if (!PyArg_ParseTuple(args, "O!", &WorldType, &src)) return NULL;
  JellyWorld *w = usable(self), *s = usable(src);
  if (!w || !s) return NULL;
  char err[ERRSZ] = "";
  JellyResult r = jelly_world_copy_state(w, s, err, sizeof err);
  if (r) return raise_result(r, err, 0);
  Py_RETURN_NONE;
}

/* ---- module ----------------------------------------------------------------------- */

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT,
                                    "_jelly",
                                    "Jelly's public C API for Python (the jelly package wraps it).",
                                    -1,
                                    NULL,
                                    NULL,
                                    NULL,
                                    NULL,
                                    NULL};

PyMODINIT_FUNC PyInit__jelly(void); /* the entry point Python looks up */
PyMODINIT_FUNC PyInit__jelly(void) {
  import_array();
  if (PyType_Ready(&ModelType) < 0 || PyType_Ready(&WorldType) < 0) return NULL;
  PyObject *m = PyModule_Create(&module);
  if (!m) return NULL;
  SceneError = PyErr_NewExceptionWithDoc(
      "jelly.SceneError", "A scene that cannot be built: the message names the key path.", PyExc_ValueError, NULL);
  SimulationError = PyErr_NewExceptionWithDoc("jelly.SimulationError",
                                              "The simulation diverged; the state is as before the failed step.",
                                              PyExc_RuntimeError, NULL);
  if (!SceneError || !SimulationError || PyModule_AddObjectRef(m, "SceneError", SceneError) < 0 ||
      PyModule_AddObjectRef(m, "SimulationError", SimulationError) < 0 ||
      PyModule_AddObjectRef(m, "Model", (PyObject *)&ModelType) < 0 ||
      PyModule_AddObjectRef(m, "World", (PyObject *)&WorldType) < 0 ||
      PyModule_AddStringConstant(m, "version", jelly_version()) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
