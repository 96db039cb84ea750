// page.wait_for_function predicate for miniwob_page.MiniWobPage: 'loaded': window.onload ran
// core.startEpisode() (the sync cover exists); 'task': the episode's task is ready.
(what) => what === 'loaded'
  ? typeof core !== 'undefined' && core.cover_div !== null
  : WOB_TASK_READY === true
