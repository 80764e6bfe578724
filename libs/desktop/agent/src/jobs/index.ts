// WORK-07..13: background jobs.
export {
  DEFAULT_MAX_RUNNING_JOBS,
  JobService,
  type CancelJobResult,
  type CreateJobInput,
  type JobCard,
  type JobEvent,
  type JobListener,
  type JobServiceOptions,
} from './job-service';
export { JOB_STATUSES, JobRepository, type JobRow, type JobStatus } from '../store/job.repository';
