/* gstark: the umbrella header. */
#ifndef GSTARK_GSTARK_H
#define GSTARK_GSTARK_H

#define GSTARK_VERSION "0.1.0"

#include "gstark/air.h"
#include "gstark/airs.h"
#include "gstark/batch.h"
#include "gstark/cuda.h"
#include "gstark/field.h"
#include "gstark/hash.h"
#include "gstark/mem.h"
#include "gstark/merkle.h"
#include "gstark/ntt.h"
#include "gstark/obs.h"
#include "gstark/parallel.h"
#include "gstark/poseidon2.h"
#include "gstark/proof.h"
#include "gstark/sched.h"
#include "gstark/size.h"
#include "gstark/prover.h"
#include "gstark/status.h"
#include "gstark/store.h"
#include "gstark/synth.h"
#include "gstark/transcript.h"
#include "gstark/verifier.h"

#endif
