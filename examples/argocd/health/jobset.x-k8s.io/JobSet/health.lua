-- Argo CD health of a JobSet (jobset.x-k8s.io/v1alpha2), from the conditions its controller sets
-- (kubernetes-sigs/jobset pkg/controllers: jobset_controller.go, failure_policy.go, startup_policy.go):
-- Completed and Failed are terminal; Suspended is True while suspended (False, "ResumeJobs", once
-- resumed); RestartingJobSet and StartupPolicyInProgress are True while the jobs are being recreated
-- or started in order. Kueue holds a JobSet with spec.suspend until it admits it.
-- Argo CD runs this without Lua's standard libraries (base and table only): no string functions.
local hs = {}
local status = obj.status or {}
local conditions = status.conditions or {}

local function condition(conditionType)
  for _, c in ipairs(conditions) do
    if c.type == conditionType and c.status == "True" then
      return c
    end
  end
  return nil
end

local function said(c, default)
  if c ~= nil and c.message ~= nil and c.message ~= "" then
    return c.message
  end
  return default
end

for _, terminal in ipairs({{"Failed", "Degraded"}, {"Completed", "Healthy"}}) do
  local c = condition(terminal[1])
  if c ~= nil then
    hs.status = terminal[2]
    hs.message = said(c, "JobSet " .. terminal[1])
    return hs
  end
end

local suspended = condition("Suspended")
if (obj.spec ~= nil and obj.spec.suspend == true) or suspended ~= nil then
  hs.status = "Suspended"
  hs.message = said(suspended, "JobSet is suspended")
  return hs
end

hs.status = "Progressing"
local underway = condition("RestartingJobSet") or condition("StartupPolicyInProgress")
if underway ~= nil then
  hs.message = said(underway, underway.type)
  return hs
end

-- Jobs ready per replicated job, in the spec's order: "Jobs ready: launcher 1/1, node 1/2 (1 succeeded)".
local counts = {}
for _, rjs in ipairs(status.replicatedJobsStatus or {}) do
  if rjs.name ~= nil then
    counts[rjs.name] = rjs
  end
end
local parts = {}
local replicatedJobs = {}
if obj.spec ~= nil and obj.spec.replicatedJobs ~= nil then
  replicatedJobs = obj.spec.replicatedJobs
end
for _, rjob in ipairs(replicatedJobs) do
  local rjs = counts[rjob.name]
  if rjs ~= nil then
    local part = tostring(rjob.name) .. " " .. tostring(rjs.ready or 0) .. "/" .. tostring(rjob.replicas or 1)
    if (rjs.succeeded or 0) > 0 then
      part = part .. " (" .. tostring(rjs.succeeded) .. " succeeded)"
    end
    table.insert(parts, part)
  end
end
if #parts == 0 then
  hs.message = "Waiting for the JobSet's jobs"
else
  hs.message = "Jobs ready: " .. table.concat(parts, ", ")
end
if (status.restarts or 0) > 0 then
  hs.message = hs.message .. "; restarts: " .. tostring(status.restarts)
end
return hs
