/* record_slurm — what "mw record" notes of the Slurm job it runs in (cmd_record.c calls it
 * from write_meta): nothing outside a job. Private to the command. */
#ifndef MW_RECORD_SLURM_H
#define MW_RECORD_SLURM_H
#include "record_cmd.h"

/* Inside an allocation (SLURM_JOB_ID set: salloc, sbatch, srun, or the SPANK plugin
 * slurm/mw_spank.c) stores the meta keys slurm_job_id, slurm_step_id, slurm_cluster,
 * slurm_job_nodelist, slurm_nodes (the list expanded by `scontrol show hostnames`),
 * slurm_node_channels and slurm_nodes_without_channel (docs/slurm.md), and says on stderr
 * which of the job's nodes no channel measures. A store failure goes to mw_rec_store_failed. */
void mw_rec_slurm_meta(rec_t *r);
#endif
